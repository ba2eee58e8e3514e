#include "buffered_session.hpp"

#include "deadline_socket.hpp"
#include "request_head_check.hpp"

#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/poll_until.hpp>

#include <Poco/Net/Socket.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>

namespace benchd::threads_poco {
namespace {

/// Twice the largest head, so a head always fits behind the unread bytes after at most one
/// move of them (makeRoomForHead) and moves happen at most once per kMaxRequestHeaderBytes read.
constexpr std::size_t kBufferBytes = 2 * sdk::kMaxRequestHeaderBytes;
static_assert(kBufferBytes <= INT_MAX, "a receive takes an int length");

/// Reads at least this large skip the buffer when it is empty (a body's bulk); smaller ones
/// (chunk-size lines, CRLFs) are served from one refill.
constexpr std::streamsize kDirectReadBytes = 1024;

}  // namespace

BufferedServerSession::BufferedServerSession(const Poco::Net::StreamSocket& socket,
                                             const Poco::Net::HTTPServerParams::Ptr& params)
    : HTTPServerSession(socket, params),
      deadline_socket_(dynamic_cast<DeadlineSocketImpl*>(socket.impl())),
      keep_alive_timeout_(params->getKeepAliveTimeout()),
      requests_left_(params->getMaxKeepAliveRequests() > 0 ? params->getMaxKeepAliveRequests()
                                                           : -1),
      buffer_(std::make_unique_for_overwrite<char[]>(kBufferBytes)) {}

bool BufferedServerSession::awaitRequest() {
  if (first_request_) {
    first_request_ = false;
    countRequest();
    return awaitReadable(getTimeout());
  }
  if (!mayKeepAlive() || !getKeepAlive())
    return false;
  countRequest();
  // Poco's hasMoreRequests() looks at its own buffer, which stays empty here: it would wait
  // for the socket while a pipelined request sits in ours.
  if (unreadBytes() > 0)
    return true;
  if (!socket().impl()->initialized())
    return false;
  return awaitReadable(keep_alive_timeout_);
}

void BufferedServerSession::countRequest() noexcept {
  if (requests_left_ > 0)
    --requests_left_;
}

bool BufferedServerSession::awaitReadable(const Poco::Timespan& timeout) {
  if (deadline_socket_ != nullptr && deadline_socket_->hasPendingInput())
    return true;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::microseconds(timeout.totalMicroseconds());
  pollfd readable{socket().impl()->sockfd(), POLLIN, 0};
  return sdk::pollUntil(std::span(&readable, 1), deadline) == sdk::PollResult::kReady;
}

void BufferedServerSession::makeRoomForHead() {
  if (kBufferBytes - begin_ >= sdk::kMaxRequestHeaderBytes)
    return;
  std::memmove(buffer_.get(), buffer_.get() + begin_, unreadBytes());
  end_ -= begin_;
  begin_ = 0;
}

h2_session::PrefaceMatch BufferedServerSession::matchClientPreface() {
  makeRoomForHead();
  for (;;) {
    const std::string_view received(buffer_.get() + begin_, unreadBytes());
    if (!received.empty()) {
      const auto match = h2_session::matchClientPreface(received);
      if (match != h2_session::PrefaceMatch::kPartial)
        return match;
    }
    // The preface (24 bytes) is far below the room makeRoomForHead() left.
    const int got = receive(buffer_.get() + end_,
                            static_cast<int>(std::min(kBufferBytes - end_, std::size_t{INT_MAX})));
    if (got <= 0)
      return h2_session::PrefaceMatch::kHttp1;
    end_ += static_cast<std::size_t>(got);
  }
}

std::string BufferedServerSession::takeUnread() {
  std::string unread(buffer_.get() + begin_, unreadBytes());
  begin_ = end_;
  return unread;
}

HeadRead BufferedServerSession::readHead() {
  makeRoomForHead();
  RequestHeadChecker checker;
  for (;;) {
    const std::string_view received(buffer_.get() + begin_, unreadBytes());
    HeadCheck check = checker.check(received);
    switch (check.verdict) {
      case HeadCheck::Verdict::kComplete:
        begin_ += check.head_bytes;
        return HeadRead{HeadRead::Outcome::kHead, received.substr(0, check.head_bytes), {}};
      case HeadCheck::Verdict::kRefused:
        return HeadRead{HeadRead::Outcome::kRefused, {}, std::move(check.problem)};
      case HeadCheck::Verdict::kIncomplete:
        break;
    }
    // The checker refuses a head at kMaxRequestHeaderBytes, and makeRoomForHead() left at
    // least that much behind begin_, so there is room here.
    const int got = receive(buffer_.get() + end_,
                            static_cast<int>(std::min(kBufferBytes - end_, std::size_t{INT_MAX})));
    if (got <= 0) {
      return HeadRead{
          received.empty() ? HeadRead::Outcome::kClosed : HeadRead::Outcome::kEndedEarly, {}, {}};
    }
    end_ += static_cast<std::size_t>(got);
  }
}

int BufferedServerSession::read(char* buffer, std::streamsize length) {
  if (length <= 0)
    return 0;
  if (unreadBytes() == 0) {
    if (length >= kDirectReadBytes)
      return receive(buffer, static_cast<int>(std::min<std::streamsize>(length, INT_MAX)));
    begin_ = 0;
    end_ = 0;
    const int got = receive(buffer_.get(), static_cast<int>(kBufferBytes));
    if (got <= 0)
      return got;
    end_ = static_cast<std::size_t>(got);
  }
  const std::size_t taken = std::min(unreadBytes(), static_cast<std::size_t>(length));
  std::memcpy(buffer, buffer_.get() + begin_, taken);
  begin_ += taken;
  return static_cast<int>(taken);
}

}  // namespace benchd::threads_poco
