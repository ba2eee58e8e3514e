#include "upstream_session_pool.hpp"

#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/request_deadline.hpp>
#include <benchd/sdk/service_request.hpp>

#include <Poco/Exception.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/StreamCopier.h>
#include <Poco/Timespan.h>

#include <chrono>

namespace benchd::threads_poco {

namespace {

Poco::Timespan timespanOf(std::chrono::microseconds duration) {
  return {duration.count()};
}

}  // namespace

/// An HTTPClientSession that counts the bytes of answers it hands to Poco's parser, so a
/// failed exchange tells whether anything was received (Poco's exceptions do not).
class UpstreamSessionPool::Session final : public Poco::Net::HTTPClientSession {
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

void UpstreamSessionPool::SessionDeleter::operator()(Session* session) const {
  delete session;
  pool->budget_.release();
}

UpstreamSessionPool::UpstreamSessionPool(std::chrono::milliseconds response_margin,
                                         std::chrono::milliseconds idle_timeout)
    : response_margin_(response_margin), idle_(idle_timeout) {}

void UpstreamSessionPool::setEndpoint(std::string host, std::uint16_t port) {
  host_ = std::move(host);
  port_ = port;
}

UpstreamSessionPool::SessionPtr UpstreamSessionPool::takeIdle() {
  auto session = idle_.take([](SessionPtr& idle) { return idle->idleUsable(); });
  return session ? std::move(*session) : SessionPtr(nullptr, SessionDeleter{this});
}

UpstreamSessionPool::SessionPtr UpstreamSessionPool::open() {
  if (!budget_.tryReserve())
    return SessionPtr(nullptr, SessionDeleter{this});
  SessionPtr session(new Session(host_, port_), SessionDeleter{this});
  session->setKeepAlive(true);
  // Poco reconnects by itself once this has passed since the last request was sent (8 s by
  // default), behind the pool's back. The pool's expiry (kUpstreamIdleTimeout since the answer)
  // decides instead, so Poco's may only strike after the longest exchange plus that.
  session->setKeepAliveTimeout(
      timespanOf(sdk::upstreamResponseTimeout(sdk::kMaxDelayMillis) + sdk::kUpstreamIdleTimeout));
  return session;
}

UpstreamResult UpstreamSessionPool::get(const std::string& target, ClientWatch& watch) {
  const Poco::Timespan connect_timeout = timespanOf(sdk::kConnectTimeout);
  const Poco::Timespan response_timeout =
      timespanOf(sdk::upstreamResponseTimeoutFor(target, response_margin_));
  SessionPtr session = takeIdle();
  bool reused = session != nullptr;
  for (;;) {
    if (!session) {
      session = open();
      if (!session)
        return {"upstream pool exhausted", 0, {}};
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
      if (!watch.awaitReadable(session->socket(), response_timeout)) {
        session.reset();
        return {"the client left", 0, {}};
      }
      Poco::Net::HTTPResponse response;
      std::istream& body_stream = session->receiveResponse(response);
      UpstreamResult result;
      result.status = static_cast<int>(response.getStatus());
      Poco::StreamCopier::copyToString(body_stream, result.body);
      if (response.getKeepAlive())
        idle_.put(std::move(session));
      return result;
    } catch (const Poco::Exception& e) {
      const bool retry = staleKeepAlive(reused, e, session->receivedAny());
      session.reset();
      if (!retry)
        return {e.displayText(), 0, {}};
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

}  // namespace benchd::threads_poco
