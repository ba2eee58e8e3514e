#include "upstream_session_pool.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>
#include <Poco/Timespan.h>

namespace benchd::threads_poco {

namespace {

/// The original's client timeouts: 20 s to connect, 60 s for the answer.
const Poco::Timespan kConnectTimeout(20, 0);
const Poco::Timespan kIoTimeout(60, 0);

}  // namespace

void UpstreamSessionPool::SessionDeleter::operator()(Poco::Net::HTTPClientSession* session) const {
  delete session;
  pool->sessions_open_.fetch_sub(1, std::memory_order_relaxed);
}

void UpstreamSessionPool::setEndpoint(std::string host, std::uint16_t port) {
  host_ = std::move(host);
  port_ = port;
}

UpstreamSessionPool::Session UpstreamSessionPool::takeIdle() {
  const std::lock_guard lock(mutex_);
  if (idle_.empty())
    return Session(nullptr, SessionDeleter{this});
  Session session = std::move(idle_.back());
  idle_.pop_back();
  return session;
}

UpstreamSessionPool::Session UpstreamSessionPool::open() {
  if (sessions_open_.fetch_add(1, std::memory_order_relaxed) >= kCapacity) {
    sessions_open_.fetch_sub(1, std::memory_order_relaxed);
    return Session(nullptr, SessionDeleter{this});
  }
  Session session(new Poco::Net::HTTPClientSession(host_, port_), SessionDeleter{this});
  session->setKeepAlive(true);
  session->setTimeout(kConnectTimeout, kIoTimeout, kIoTimeout);
  return session;
}

void UpstreamSessionPool::giveBack(Session session) {
  const std::lock_guard lock(mutex_);
  idle_.push_back(std::move(session));
}

void UpstreamSessionPool::closeIdle() {
  std::vector<Session> closing;
  {
    const std::lock_guard lock(mutex_);
    closing.swap(idle_);
  }
}

UpstreamResult UpstreamSessionPool::get(const std::string& target) {
  Session session = takeIdle();
  bool reused = session != nullptr;
  for (;;) {
    if (!session) {
      session = open();
      if (!session)
        return {"upstream pool exhausted", 0, {}};
      reused = false;
    }
    try {
      Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, target,
                                     Poco::Net::HTTPMessage::HTTP_1_1);
      request.setKeepAlive(true);
      request.setHost("127.0.0.1");
      session->sendRequest(request);
      Poco::Net::HTTPResponse response;
      std::istream& body_stream = session->receiveResponse(response);
      UpstreamResult result;
      result.status = static_cast<int>(response.getStatus());
      Poco::StreamCopier::copyToString(body_stream, result.body);
      if (response.getKeepAlive())
        giveBack(std::move(session));
      return result;
    } catch (const Poco::Exception& e) {
      session.reset();
      // A reused session may have lost its connection while it sat in the pool; one more try
      // on a new connection is safe because the server never saw the request.
      if (!reused)
        return {e.displayText(), 0, {}};
    }
  }
}

}  // namespace benchd::threads_poco
