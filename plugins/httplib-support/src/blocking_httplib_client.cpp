#include <benchd/httplib_support/blocking_httplib_client.hpp>
#include <benchd/httplib_support/departure_watcher.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/request_deadline.hpp>
#include <benchd/sdk/service_request.hpp>

#include <httplib.h>

#include <optional>
#include <utility>

namespace benchd::httplib_support {

/// One pooled keep-alive connection: an httplib::Client, which keeps at most one. Holds a
/// place of the budget from its making to its destruction. Used by one thread at a time (the
/// pool hands it out under its lock); the watcher may call stop() on it from its own thread.
class BlockingHttplibClient::Connection {
 public:
  Connection(const std::string& address, std::uint16_t port, sdk::ConnectionBudget& budget)
      : client(address, port), budget_(budget) {
    client.set_keep_alive(true);
    client.set_tcp_nodelay(true);
    client.set_connection_timeout(sdk::kConnectTimeout);
    // As Beast's client sends it: the server's own loopback address, whatever the bind.
    client.set_default_headers({{"Host", "127.0.0.1"}});
  }
  ~Connection() { budget_.release(); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  httplib::Client client;

 private:
  sdk::ConnectionBudget& budget_;
};

void BlockingHttplibClient::ConnectionDeleter::operator()(Connection* connection) const {
  delete connection;
}

BlockingHttplibClient::BlockingHttplibClient(std::chrono::milliseconds response_margin,
                                             std::chrono::milliseconds idle_timeout, int stop_fd)
    : response_margin_(response_margin),
      watcher_(std::make_unique<DepartureWatcher>(stop_fd)),
      idle_(idle_timeout) {}

BlockingHttplibClient::~BlockingHttplibClient() = default;

void BlockingHttplibClient::setEndpoint(const std::string& address, std::uint16_t port) {
  address_ = address;
  port_ = port;
}

sdk::NestedCallOutcome BlockingHttplibClient::get(const std::string& target, int client_fd) {
  // httplib checks a kept connection itself before it reuses it, and connects anew if it died.
  auto taken = idle_.take([](const ConnectionPtr&) { return true; });
  ConnectionPtr connection = taken ? std::move(*taken) : ConnectionPtr();
  if (!connection) {
    if (!budget_.tryReserve())
      return {"upstream pool exhausted", 0, {}, false};
    connection.reset(new Connection(address_, port_, budget_));
  }
  const auto timeout = sdk::upstreamResponseTimeoutFor(target, response_margin_);
  connection->client.set_read_timeout(timeout);
  connection->client.set_write_timeout(timeout);

  sdk::NestedCallOutcome outcome;
  bool too_large = false;
  std::optional<httplib::Result> result;  // none when the client had left before the call
  {
    httplib::Client& client = connection->client;
    const DepartureWatcher::Watch watch = watcher_->watch(client_fd, [&client] { client.stop(); });
    if (!watch.departed()) {
      result.emplace(client.Get(
          target, [](const httplib::Response&) { return true; },
          [&outcome, &too_large](const char* data, std::size_t length) {
            if (outcome.body.size() + length > sdk::kMaxUpstreamAnswerBytes) {
              too_large = true;
              return false;
            }
            outcome.body.append(data, length);
            return true;
          }));
    }
    outcome.client_gone = watch.departed();
  }
  if (outcome.client_gone) {
    outcome.error = "the client left";
    return outcome;  // closes the connection: the callee's own wait ends
  }
  if (!*result) {
    outcome.error =
        too_large ? "answer larger than " + std::to_string(sdk::kMaxUpstreamAnswerBytes) + " bytes"
                  : "httplib: " + httplib::to_string(result->error());
    outcome.body.clear();
    return outcome;
  }
  outcome.status = static_cast<unsigned>((*result)->status);
  // httplib closes the connection itself after an answer that says Connection: close.
  if (connection->client.is_socket_open() != 0)
    idle_.put(std::move(connection));
  return outcome;
}

}  // namespace benchd::httplib_support
