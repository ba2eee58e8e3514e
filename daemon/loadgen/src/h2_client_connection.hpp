#pragma once

#include "loop_context.hpp"
#include "prepared_request.hpp"

#include <benchd/measurement/error_class.hpp>

#include <boost/system/error_code.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace benchd::loadgen {

class VirtualUser;

/// One HTTP/2 connection of the load generator (RequestTarget::http2), carrying the requests of
/// up to RequestTarget::streams_per_connection VirtualUsers at once, one stream each: over TLS
/// with ALPN "h2" (a `h2` target) or in clear with prior knowledge (`h2c`). It connects when the
/// first of its users starts a request (the connect, handshake and preface count as that
/// request's connect time) and closes when the last one is closed. Every frame the session
/// produces in one turn of the loop goes out in one write.
///
/// A user hears back through VirtualUser::onStreamSubmitted (its stream went into the session:
/// its clock starts; called inside start() once the connection is open, and changes only the
/// user's own state) and VirtualUser::onStreamEnded (answered, failed, or reset after cancel),
/// which does not come from inside a call the user made on the connection (but for a fatal
/// nghttp2 error while start() sends, which ends every stream at once). A lost connection ends
/// every stream on it as connection_reset; streams the server refused (REFUSED_STREAM, or above
/// a GOAWAY's last stream) as well, since no HTTP/2 request is re-sent.
///
/// Thread-safety: its loop's thread only. Owners destroy it only after the loop's io_context has
/// stopped running, so no handler it started runs afterwards; such handlers keep the connection's
/// Link (socket, TLS stream, nghttp2 session) alive until the io_context destroys them.
class H2ClientConnection {
 public:
  explicit H2ClientConnection(LoopContext& loop);
  ~H2ClientConnection();
  H2ClientConnection(const H2ClientConnection&) = delete;
  H2ClientConnection& operator=(const H2ClientConnection&) = delete;

  /// A user will start requests here; the connection stays until it detaches.
  void attach() noexcept { ++attached_; }
  /// An attached user has no more requests for now; the connection closes once no user is
  /// attached (after the current turn of the loop).
  void detach();

  /// Sends `request` for `user` (attached) as a new stream, connecting first when needed.
  /// `request` outlives the stream.
  void start(VirtualUser& user, const PreparedRequest& request);
  /// Ends `user`'s stream early (its deadline passed): a RST_STREAM(CANCEL), or out of the
  /// queue when it waits for the connection. The user hears onStreamEnded afterwards.
  void cancel(VirtualUser& user);
  struct Link;

 private:
  struct Pending {
    VirtualUser* user;
    const PreparedRequest* request;
  };
  struct Ended {
    VirtualUser* user;
    std::optional<measurement::ErrorClass> error;
    bool sent;
  };

  void connect();
  void onConnected(const std::shared_ptr<Link>& link, const boost::system::error_code& error);
  void onHandshaken(const std::shared_ptr<Link>& link, const boost::system::error_code& error);
  void openSession(const std::shared_ptr<Link>& link);
  void submit(const Pending& pending);
  /// Takes the session's output and tells the users whose streams ended, until neither has
  /// more (a user told may start its next request here), then writes. Not re-entered.
  void pump();
  void write();
  void read();
  /// The connection failed or ended: its streams end with `stream_error` (they were sent);
  /// requests queued for a connection that never opened end with `connect_error` (sent
  /// nothing), those queued behind a GOAWAY go to a new connection.
  void fail(measurement::ErrorClass stream_error, measurement::ErrorClass connect_error);
  void closeIfUnused();

  friend struct SessionCallbacks;

  LoopContext& loop_;
  std::shared_ptr<Link> link_;   ///< the open or opening connection; null when closed
  std::vector<Pending> queued_;  ///< waiting for the connection to open
  std::vector<Ended> ended_;     ///< streams ended inside nghttp2, told in pump()
  std::uint32_t attached_ = 0;   ///< users attached and not detached since
  bool pumping_ = false;
  bool close_posted_ = false;
};

/// The connections of one group on one loop: `connections` of them, each carrying
/// LoopContext::streams_per_connection VUs (slots) under HTTP/2. Slot s (a VU's local index)
/// goes on connection s / streams_per_connection, so a group that starts its VUs in order fills
/// one connection's streams before it opens the next. Under HTTP/1.1 every VU is a connection
/// of its own and the pool holds nothing. Its loop's thread only.
class H2ConnectionPool {
 public:
  H2ConnectionPool(LoopContext& loop, std::uint32_t connections);

  /// How many VUs the group makes.
  [[nodiscard]] std::uint32_t slots() const noexcept { return slots_; }
  /// The connection of slot `slot`; null under HTTP/1.1.
  [[nodiscard]] H2ClientConnection* forSlot(std::uint32_t slot) const noexcept;

 private:
  std::uint32_t streams_per_connection_;
  std::uint32_t slots_;
  std::vector<std::unique_ptr<H2ClientConnection>> connections_;
};

}  // namespace benchd::loadgen
