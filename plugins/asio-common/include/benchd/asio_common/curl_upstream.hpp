#pragma once
// The nested call's client under the `client-curl` profile, for the event-loop plugins
// (callbacks, coroutines, fibers): libcurl's multi interface driven by the loop's own reactor
// (curl_multi_socket_action), as one Asio asynchronous operation with a completion token:
//
//   loop.curl->asyncGet(target, watch, token)   completion: void(UpstreamResult)
//
// The callbacks plugin passes a callback, the coroutines plugin awaits it, the fibers plugin
// passes use_fiber; no thread ever blocks in libcurl. libcurl owns the connection pool (its
// multi handle's connection cache, one per loop, like UpstreamPool); benchd owns the sockets:
// libcurl opens them through a callback that reserves a place of the worker-wide upstream
// capacity (EventLoopGroup::reserveUpstreamConnection) and closes them through another that
// gives it back, so `upstream_connections_open` counts them exactly as it counts Beast's.
//
// The contract's rules hold as for the Beast client (CONTRACT.md section 6):
// - connect within sdk::kConnectTimeout; the answer within sdk::upstreamResponseTimeoutFor
//   (libcurl counts it from the transfer's start, the connect included: microseconds here);
// - a departing client (ClientWatch) ends the call at once with operation_aborted, and libcurl
//   closes the connection of a transfer removed mid-way, so the chain below unwinds;
// - only libcurl's own retry of a reused connection that died before any byte of an answer
//   (its "connection died, retrying a fresh connect"), never after a timeout;
// - an idle connection is closed after the group's upstreamIdleTimeout(): libcurl prunes its
//   cache only when a transfer looks for a connection, so a sweep shuts expired sockets down
//   and, once nothing runs and every idle connection has expired, replaces the multi handle,
//   which closes them all.
// Where it differs from the Beast pool, as the library does: libcurl reuses the first matching
// idle connection, not the latest (docs/approaches.md, "Where the plugins differ").

#include <benchd/asio_common/client_watch.hpp>
#include <benchd/asio_common/upstream_pool.hpp>
#include <benchd/curl_support/curl_support.hpp>

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <memory>
#include <string>
#include <utility>

namespace benchd::asio_common {

struct EventLoop;

using curl_support::kCurlClientProfile;

namespace detail {

/// The type-erased completion of one asyncGet (Boost 1.81 has no any_completion_handler).
class UpstreamCompletion {
 public:
  virtual ~UpstreamCompletion() = default;
  /// Hands `result` to the handler through its associated executor; called once.
  virtual void complete(UpstreamResult result) = 0;

 protected:
  UpstreamCompletion() = default;
  UpstreamCompletion(const UpstreamCompletion&) = default;
  UpstreamCompletion& operator=(const UpstreamCompletion&) = default;
};

template <typename Handler>
class UpstreamCompletionOf final : public UpstreamCompletion {
 public:
  UpstreamCompletionOf(Handler handler, boost::asio::io_context::executor_type loop)
      : handler_(std::move(handler)), loop_(std::move(loop)) {}

  void complete(UpstreamResult result) override {
    // Always posted: the call may end inside its own initiation (no capacity, a client
    // already gone), and a handler must not run there.
    const auto executor = boost::asio::get_associated_executor(handler_, loop_);
    boost::asio::post(executor, Invoke{std::move(handler_), std::move(result)});
  }

 private:
  struct Invoke {
    Handler handler;
    UpstreamResult result;
    void operator()() { std::move(handler)(std::move(result)); }
  };

  Handler handler_;
  boost::asio::io_context::executor_type loop_;
};

}  // namespace detail

/// libcurl's multi interface on one event loop. Created with the loop when its group's
/// settings name kCurlClientProfile, before the loop's thread runs; from then on loop thread
/// only. The loop owns it and destroys it after its thread has ended and before its
/// io_context.
class CurlUpstream {
 public:
  explicit CurlUpstream(EventLoop& loop);
  ~CurlUpstream();
  CurlUpstream(const CurlUpstream&) = delete;
  CurlUpstream& operator=(const CurlUpstream&) = delete;

  /// Sends GET `target` to the server's own endpoint and completes with the answer, or an
  /// error: operation_aborted when `watch`'s client left, no_buffer_space when the worker's
  /// upstream capacity is exhausted, timed_out, or libcurl's own error (curlErrorCategory()).
  /// `watch` outlives the call.
  template <typename Token>
  auto asyncGet(std::string target, ClientWatch& watch, Token&& token) {
    return boost::asio::async_initiate<Token, void(UpstreamResult)>(
        [this](auto handler, std::string&& path, ClientWatch* client) {
          start(path, *client,
                std::make_unique<detail::UpstreamCompletionOf<decltype(handler)>>(
                    std::move(handler), executor()));
        },
        token, std::move(target), &watch);
  }

  /// Closes the idle connections (the server drains); transfers in flight go on.
  void closeIdle();

  struct State;

 private:
  [[nodiscard]] boost::asio::io_context::executor_type executor() const noexcept;
  void start(const std::string& target, ClientWatch& watch,
             std::unique_ptr<detail::UpstreamCompletion> done);

  std::unique_ptr<State> state_;
};

/// The error category of libcurl's CURLcode values (messages from curl_easy_strerror).
[[nodiscard]] const boost::system::error_category& curlErrorCategory() noexcept;

}  // namespace benchd::asio_common
