#pragma once

#include <benchd/asio_common/client_watch.hpp>
#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/sdk/host.hpp>
#include <benchd/sdk/service_request.hpp>

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace benchd::callbacks_asio {

/// How a request's answer ended.
struct RequestOutcome {
  /// The reply; none when the client left while the request waited (nobody to answer).
  std::optional<sdk::Reply> reply;
  /// The connection ends after the reply (an interrupted delay); HTTP/1.1 only.
  bool close_after = false;
};

/// One request's answer, as completion handlers: classified, then the wait (the delay, or the
/// nested call at depth > 0), then the host's answer or, under `postgres`, the database's. The
/// same for an HTTP/1.1 request (a Session's) and an HTTP/2 stream (an Http2Connection's):
/// only where it arrived, which the ClientWatch watches while it waits, differs.
///
/// Contract: loop thread only; one request at a time (start() again only after `finish` was
/// called). Every pending handler holds `owner`, which keeps this object (and what `inbound`
/// and `buffer` point to) alive; it is not stored here, so an owner that holds this object
/// makes no cycle. `finish` is called exactly once, possibly inside start(), and may start the
/// next request.
class RequestRun {
 public:
  using Finish = std::function<void(const RequestOutcome& outcome)>;

  RequestRun(asio_common::EventLoop& loop, const sdk::Host& host);

  void start(std::shared_ptr<void> owner, std::string_view method, std::string_view target,
             std::string body, asio_common::InboundStream inbound,
             boost::beast::flat_buffer& buffer, Finish finish);

 private:
  void onDelayElapsed(boost::system::error_code error, std::shared_ptr<void> owner);
  void onUpstreamDone(const asio_common::UpstreamResult& result, std::shared_ptr<void> owner);
  /// Answers the request whose waiting is done: from the host, or under `postgres` from the
  /// database, whose reply comes back as one more callback (holding `owner`).
  void answer(std::shared_ptr<void> owner);
  /// Ends the request: the watch goes first, then `finish_` runs (moved out, since it may
  /// start the next request on this object).
  void end(const RequestOutcome& outcome);

  asio_common::EventLoop& loop_;
  const sdk::Host& host_;
  boost::asio::steady_timer delay_timer_;
  sdk::ServiceRequest request_;
  std::string body_;
  Finish finish_;
  std::optional<asio_common::ClientWatch> watch_;                       ///< while it waits
  std::optional<asio_common::ClientWatch::Interruption> interruption_;  ///< of the delay
};

}  // namespace benchd::callbacks_asio
