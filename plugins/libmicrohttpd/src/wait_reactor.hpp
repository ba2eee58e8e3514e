#pragma once
// Where the requests of MHD's event-driven modes (mode=internal, mode=pool) wait. MHD's own
// threads only read, check and answer; a request that must wait (its delay, its nested call,
// the database) is suspended in MHD and handed to this one reactor thread, which waits for
// all of them at once: its timers, libcurl's multi interface for the nested calls (pooled
// keep-alive connections in the multi handle's cache), the database sessions' sockets, and a
// dup() of each waiting client's socket for its departure, since MHD does not watch a
// suspended connection. When a request's waits are done the reactor hands its reply back
// (WaitDone), and the caller resumes the connection in MHD.

#include "server_state.hpp"

#include <benchd/sdk/database.hpp>
#include <benchd/sdk/database_session_stock.hpp>
#include <benchd/sdk/service_request.hpp>

#include <chrono>
#include <cstdint>
#include <curl/curl.h>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace benchd::libmicrohttpd {

/// The end of a request's waits: its reply, or nothing when the client left first or the
/// reactor stopped (nobody to answer). Called once, on the reactor thread.
using WaitDone = std::function<void(std::optional<sdk::Reply>)>;

/// Thread-safety: submit(), drain() and counters from any thread; start() and stop() from the
/// host thread; everything else on the reactor thread.
class WaitReactor {
 public:
  struct Settings {
    std::chrono::milliseconds upstream_margin;
    std::chrono::milliseconds upstream_idle;
    std::chrono::milliseconds database_deadline;
    /// The nested calls go over TLS (the `tls` profile).
    bool tls = false;
  };

  /// Throws sdk::PluginError when its epoll instance or libcurl cannot start.
  WaitReactor(ServerState& state, Settings settings);
  ~WaitReactor();
  WaitReactor(const WaitReactor&) = delete;
  WaitReactor& operator=(const WaitReactor&) = delete;

  /// Nested calls go to `address`:`port` (the server's own endpoint); before start().
  void setEndpoint(const std::string& address, std::uint16_t port);
  void start();
  /// Ends every wait (each done with nothing), closes every connection and joins the thread.
  void stop();

  /// Runs `request`'s waits, watching the client on `client_fd` (not taken: the reactor
  /// watches a dup() of it), then answers it (the database's or the host's answer) through
  /// `done`.
  void submit(sdk::ServiceRequest request, std::string body, int client_fd, WaitDone done);
  /// Closes idle nested-call connections as soon as no call runs (the server drains).
  void drain();

  [[nodiscard]] std::int64_t upstreamConnectionsOpen() const noexcept {
    return upstream_sockets_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::int64_t waiting() const noexcept {
    return waiting_.load(std::memory_order_relaxed);
  }
  void reportDatabaseCounters(benchd_counter_sink sink, void* sink_context) const {
    database_counters_.report(sink, sink_context);
  }

 private:
  using Clock = std::chrono::steady_clock;
  struct Wait;
  struct Submission {
    sdk::ServiceRequest request;
    std::string body;
    int client_fd;
    WaitDone done;
  };

  /// Wakes the loop from another thread.
  void wake() noexcept;
  void run();
  void takeSubmissions();
  void begin(std::unique_ptr<Wait> wait);
  void afterWaits(Wait& wait);
  void finish(Wait& wait, std::optional<sdk::Reply> reply);

  // Timers: at most one per wait (its delay, or its database deadline).
  void setTimer(Wait& wait, Clock::time_point at);
  void cancelTimer(Wait& wait);
  void fireTimers();
  [[nodiscard]] int millisToNextTimer() const;

  // Descriptors in the epoll instance: a client's watch, a database session's socket.
  void handleEvents();
  /// Takes the dup()ed descriptor `fd` out of the epoll instance, closes it and sets it to -1.
  void forget(int& fd) noexcept;
  void clientLeft(Wait& wait);

  // Nested calls on libcurl's multi handle.
  void startUpstream(Wait& wait);
  void readTransfers();
  void stopTransfer(Wait& wait);
  void sweepIdleUpstream();
  CURLM* newMulti();
  static curl_socket_t openSocket(void* data, curlsocktype purpose, curl_sockaddr* address);
  static int closeSocket(void* data, curl_socket_t socket);

  // The database of the `postgres` profile: a pool of host sessions, a queue for them.
  void startDatabase(Wait& wait);
  void runDatabase(Wait& wait, sdk::DatabaseSession::Progress progress);
  void releaseSession(sdk::DatabaseSession session);
  void databaseDeadlinePassed(Wait& wait);

  ServerState& state_;
  const Settings settings_;
  std::string base_url_;
  int epoll_fd_ = -1;
  /// Readable when another thread has something for the loop; in the epoll instance.
  int wake_fd_ = -1;
  CURLM* multi_ = nullptr;
  curl_slist* headers_ = nullptr;
  std::thread thread_;

  std::mutex mutex_;  // guards submissions_ and stopping_
  std::vector<Submission> submissions_;
  bool stopping_ = false;
  std::atomic<bool> draining_{false};

  std::uint64_t next_id_ = 1;
  bool shutting_down_ = false;
  std::unordered_map<std::uint64_t, std::unique_ptr<Wait>> waits_;
  std::multimap<Clock::time_point, std::uint64_t> timers_;
  /// The running transfers' waits, by easy handle.
  std::unordered_map<CURL*, std::uint64_t> transfers_;
  int transfers_running_ = 0;
  Clock::time_point last_transfer_end_ = Clock::now();

  sdk::DatabaseSessionStock database_sessions_;
  std::deque<std::uint64_t> database_queue_;
  sdk::DatabaseWaitCounters database_counters_;

  std::atomic<std::int64_t> upstream_sockets_{0};
  std::atomic<std::int64_t> waiting_{0};
};

}  // namespace benchd::libmicrohttpd
