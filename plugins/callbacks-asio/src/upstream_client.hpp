#pragma once

#include <boost/system/error_code.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace benchd::callbacks_asio {

struct EventLoop;
struct UpstreamConnection;

/// Result of a nested call: an error, or the HTTP status and body of the answer.
struct UpstreamResult {
  boost::system::error_code error;
  unsigned status = 0;
  std::string body;
};

/// Keep-alive HTTP/1.1 client for the nested calls a request makes to its own server. Each
/// event loop has one; its idle connections are only touched on that loop's thread, and the
/// server caps the connections of all loops together (kUpstreamPoolCapacity).
class UpstreamClient {
 public:
  using Completion = std::function<void(UpstreamResult)>;

  explicit UpstreamClient(EventLoop& loop);
  ~UpstreamClient();
  UpstreamClient(const UpstreamClient&) = delete;
  UpstreamClient& operator=(const UpstreamClient&) = delete;

  /// Sends GET `target` to the server's own endpoint on a pooled connection (a new one if none
  /// is idle) and calls `done` on this loop's thread. A pooled connection the server has
  /// meanwhile closed is replaced once, transparently. Loop thread only.
  void get(std::string target, Completion done);

  /// Closes idle pooled connections. Loop thread only.
  void closeIdle();

  // For UpstreamCall.
  [[nodiscard]] EventLoop& loop() noexcept { return loop_; }
  std::unique_ptr<UpstreamConnection> takeIdle();
  void giveBack(std::unique_ptr<UpstreamConnection> connection);

 private:
  EventLoop& loop_;
  std::vector<std::unique_ptr<UpstreamConnection>> idle_;
};

}  // namespace benchd::callbacks_asio
