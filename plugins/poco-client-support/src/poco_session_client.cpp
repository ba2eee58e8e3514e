#include "tls_client_socket.hpp"

#include <benchd/poco_client_support/poco_session_client.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/poll_until.hpp>
#include <benchd/sdk/request_deadline.hpp>
#include <benchd/sdk/service_request.hpp>

#include <Poco/Exception.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/StreamCopier.h>
#include <Poco/Timespan.h>

#include <array>
#include <chrono>
#include <span>

namespace benchd::poco_client_support {

namespace {

Poco::Timespan timespanOf(std::chrono::microseconds duration) {
  return {duration.count()};
}

}  // namespace

/// An HTTPClientSession that counts the bytes of answers it hands to Poco's parser, so a
/// failed exchange tells whether anything was received (Poco's exceptions do not).
class PocoSessionClient::Session final : public Poco::Net::HTTPClientSession {
 public:
  using HTTPClientSession::HTTPClientSession;

  [[nodiscard]] bool receivedAny() const noexcept { return received_ != 0; }
  void resetReceived() noexcept { received_ = 0; }
  /// Nothing buffered, and the peer has neither closed the connection nor sent anything.
  [[nodiscard]] bool idleUsable() {
    if (buffered() != 0)
      return false;
    try {
      // Readable or in error: an idle connection expects nothing from its peer.
      return !socket().poll(Poco::Timespan(0),
                            Poco::Net::Socket::SELECT_READ | Poco::Net::Socket::SELECT_ERROR);
    } catch (const Poco::Exception&) {
      return false;
    }
  }

 protected:
  int read(char* buffer, std::streamsize length) override {
    const int count = HTTPClientSession::read(buffer, length);
    if (count > 0)
      received_ += static_cast<std::uint64_t>(count);
    return count;
  }

 private:
  std::uint64_t received_ = 0;
};

void PocoSessionClient::SessionDeleter::operator()(Session* session) const {
  delete session;
  pool->budget_.release();
}

PocoSessionClient::PocoSessionClient(std::chrono::milliseconds response_margin,
                                     std::chrono::milliseconds idle_timeout, int stop_fd,
                                     SSL_CTX* tls_client)
    : response_margin_(response_margin),
      stop_fd_(stop_fd),
      tls_client_(tls_client),
      idle_(idle_timeout) {}

void PocoSessionClient::setEndpoint(const std::string& address, std::uint16_t port) {
  host_ = address;
  port_ = port;
}

PocoSessionClient::SessionPtr PocoSessionClient::takeIdle() {
  auto session = idle_.take([](SessionPtr& idle) { return idle->idleUsable(); });
  return session ? std::move(*session) : SessionPtr(nullptr, SessionDeleter{this});
}

PocoSessionClient::SessionPtr PocoSessionClient::open() {
  if (!budget_.tryReserve())
    return SessionPtr(nullptr, SessionDeleter{this});
  SessionPtr session(nullptr, SessionDeleter{this});
  if (tls_client_ != nullptr) {
    // The session connects (and reconnects) its socket itself, TLS's handshake included.
    session.reset(new Session(Poco::Net::StreamSocket(new TlsClientSocketImpl(tls_client_))));
    session->setHost(host_);
    session->setPort(port_);
  } else {
    session.reset(new Session(host_, port_));
  }
  session->setKeepAlive(true);
  // Poco reconnects by itself once this has passed since the last request was sent (8 s by
  // default), behind the pool's back. The pool's expiry (kUpstreamIdleTimeout since the answer)
  // decides instead, so Poco's may only strike after the longest exchange plus that.
  session->setKeepAliveTimeout(
      timespanOf(sdk::upstreamResponseTimeout(sdk::kMaxDelayMillis) + sdk::kUpstreamIdleTimeout));
  return session;
}

bool PocoSessionClient::awaitAnswer(Session& session, int client_fd,
                                    std::chrono::microseconds timeout, bool& client_gone) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // Under TLS, the session's socket also turns readable for TLS's own messages (TLS 1.3's
  // session tickets after the handshake), which are no answer: the wait goes on after them.
  auto* tls = dynamic_cast<TlsClientSocketImpl*>(session.socket().impl());
  for (;;) {
    // POLLRDHUP, not POLLIN, on the client: pipelined bytes must not wake the wait, only the
    // end of the client's sending side (or POLLHUP/POLLERR, which poll always reports).
    std::array<pollfd, 3> watched{pollfd{session.socket().impl()->sockfd(), POLLIN, 0},
                                  pollfd{client_fd, POLLRDHUP, 0}, pollfd{stop_fd_, POLLIN, 0}};
    const std::size_t count = stop_fd_ >= 0 ? 3 : 2;
    switch (sdk::pollUntil(std::span(watched.data(), count), deadline)) {
      case sdk::PollResult::kTimedOut:
        throw Poco::TimeoutException("no answer to the nested call in time");
      case sdk::PollResult::kFailed:
        client_gone = true;  // a descriptor is unusable: nobody can be answered on it
        return false;
      case sdk::PollResult::kReady:
        break;
    }
    client_gone = (watched[1].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0 ||
                  (count == 3 && watched[2].revents != 0);
    if (client_gone)
      return false;
    if (tls == nullptr || watched[0].revents == 0 || tls->dataReadable())
      return true;
  }
}

sdk::NestedCallOutcome PocoSessionClient::get(const std::string& target, int client_fd) {
  const auto timeout = sdk::upstreamResponseTimeoutFor(target, response_margin_);
  const Poco::Timespan connect_timeout = timespanOf(sdk::kConnectTimeout);
  const Poco::Timespan response_timeout = timespanOf(timeout);
  SessionPtr session = takeIdle();
  bool reused = session != nullptr;
  for (;;) {
    if (!session) {
      session = open();
      if (!session)
        return {"upstream pool exhausted", 0, {}, false};
      reused = false;
    }
    try {
      // Applies to the next connect; a connected session's socket gets it directly.
      session->setTimeout(connect_timeout, response_timeout, response_timeout);
      if (session->connected()) {
        session->socket().setReceiveTimeout(response_timeout);
        session->socket().setSendTimeout(response_timeout);
      }
      session->resetReceived();
      Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, target,
                                     Poco::Net::HTTPMessage::HTTP_1_1);
      request.setKeepAlive(true);
      request.setHost("127.0.0.1");
      // Poco keeps the request in its buffer until receiveResponse(); the wait needs it sent.
      session->sendRequest(request).flush();
      bool client_gone = false;
      if (!awaitAnswer(*session, client_fd, timeout, client_gone)) {
        session.reset();
        return {"the client left", 0, {}, true};
      }
      Poco::Net::HTTPResponse response;
      std::istream& body_stream = session->receiveResponse(response);
      sdk::NestedCallOutcome result;
      result.status = static_cast<unsigned>(response.getStatus());
      Poco::StreamCopier::copyToString(body_stream, result.body);
      if (response.getKeepAlive())
        idle_.put(std::move(session));
      return result;
    } catch (const Poco::Exception& e) {
      const bool retry = staleKeepAlive(reused, e, session->receivedAny());
      session.reset();
      if (!retry)
        return {e.displayText(), 0, {}, false};
    }
  }
}

bool staleKeepAlive(bool reused, const std::exception& error, bool received_any) noexcept {
  if (!reused || received_any)
    return false;
  // TimeoutException is no NetException; every other failure is refused by name.
  return dynamic_cast<const Poco::Net::NoMessageException*>(&error) != nullptr ||
         dynamic_cast<const Poco::Net::ConnectionResetException*>(&error) != nullptr ||
         dynamic_cast<const Poco::Net::ConnectionAbortedException*>(&error) != nullptr;
}

}  // namespace benchd::poco_client_support
