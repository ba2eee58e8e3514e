#pragma once

#include <Poco/Net/HTTPClientSession.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace benchd::threads_poco {

/// Result of a nested call: an error message, or the HTTP status and body of the answer.
struct UpstreamResult {
  std::string error;  ///< empty on success
  int status = 0;
  std::string body;
};

/// Blocking keep-alive HTTP client for the nested calls, with a pool of
/// Poco::Net::HTTPClientSession shared by all pool threads (one pool per worker, capacity like
/// the original's 65,000). Thread-safe; get() blocks the calling OS thread.
class UpstreamSessionPool {
 public:
  static constexpr std::int64_t kCapacity = 65'000;

  /// Sessions connect to `host`:`port` (the server's own endpoint).
  void setEndpoint(std::string host, std::uint16_t port);

  /// GET `target`; a pooled session the server has meanwhile closed is replaced once.
  UpstreamResult get(const std::string& target);

  /// Drops every idle session (closing its connection). Thread-safe.
  void closeIdle();
  [[nodiscard]] std::int64_t sessionsOpen() const noexcept {
    return sessions_open_.load(std::memory_order_relaxed);
  }

 private:
  struct SessionDeleter {
    UpstreamSessionPool* pool;
    void operator()(Poco::Net::HTTPClientSession* session) const;
  };
  using Session = std::unique_ptr<Poco::Net::HTTPClientSession, SessionDeleter>;

  Session takeIdle();
  Session open();
  void giveBack(Session session);

  std::string host_;
  std::uint16_t port_ = 0;
  std::atomic<std::int64_t> sessions_open_{0};
  std::mutex mutex_;
  std::vector<Session> idle_;  // guarded by mutex_
};

}  // namespace benchd::threads_poco
