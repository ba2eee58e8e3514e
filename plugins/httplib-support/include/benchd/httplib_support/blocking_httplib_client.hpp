#pragma once
// The nested call's client under the `client-httplib` profile for the thread-per-connection
// plugins (threads-asio, threads-poco): cpp-httplib's blocking client, one httplib::Client per
// pooled keep-alive connection, the calling pool thread blocked in httplib's own wait.
//
// httplib's calls watch only their own socket, so a departing client is noticed by a
// DepartureWatcher thread, which ends the call with httplib::Client::stop() (that shuts the
// connection down, so the callee's own wait ends too). The contract's rules (CONTRACT.md
// section 6) hold as for the other clients: connect within sdk::kConnectTimeout; every read
// and write of the answer within sdk::upstreamResponseTimeoutFor (httplib's timeouts are per
// read, like Poco's); never sent again (httplib checks a pooled connection before it reuses it
// and connects anew when the server closed it); at most sdk::kUpstreamPoolCapacity connections
// (sdk::ConnectionBudget, a place per httplib::Client); idle ones closed after `idle_timeout`
// (sdk::SweptIdlePool). Headers differ from Beast's: httplib adds Accept and User-Agent.

#include <benchd/sdk/blocking_nested_client.hpp>
#include <benchd/sdk/connection_budget.hpp>
#include <benchd/sdk/swept_idle_pool.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace benchd::httplib_support {

/// The profile that chooses cpp-httplib as the nested call's client.
inline constexpr const char* kHttplibClientProfile = "client-httplib";

class DepartureWatcher;

/// Thread-safety as sdk::BlockingNestedClient says.
class BlockingHttplibClient final : public sdk::BlockingNestedClient {
 public:
  /// `response_margin`: what a nested call may take beyond the delay it forwards
  /// (sdk::upstreamResponseMargin()); `idle_timeout`: how long an idle connection is kept
  /// (sdk::upstreamIdleTimeout()); `stop_fd`: -1, or a descriptor readable once the server
  /// stops, which ends every call. Throws std::system_error when the watcher cannot start.
  BlockingHttplibClient(std::chrono::milliseconds response_margin,
                        std::chrono::milliseconds idle_timeout, int stop_fd = -1);
  /// Closes every idle connection; no call may be running.
  ~BlockingHttplibClient() override;

  void setEndpoint(const std::string& address, std::uint16_t port) override;
  /// Ends within DepartureWatcher's re-interrupt interval when the client leaves or the stop
  /// descriptor becomes readable.
  sdk::NestedCallOutcome get(const std::string& target, int client_fd) override;
  void drain() override { idle_.drain(); }
  [[nodiscard]] std::int64_t connectionsOpen() const noexcept override { return budget_.inUse(); }

 private:
  class Connection;
  struct ConnectionDeleter {
    void operator()(Connection* connection) const;
  };
  using ConnectionPtr = std::unique_ptr<Connection, ConnectionDeleter>;

  const std::chrono::milliseconds response_margin_;
  std::string address_;
  std::uint16_t port_ = 0;
  std::unique_ptr<DepartureWatcher> watcher_;
  sdk::ConnectionBudget budget_;
  // Last: its connections give their places back to budget_ when it closes them.
  sdk::SweptIdlePool<ConnectionPtr> idle_;
};

}  // namespace benchd::httplib_support
