#include "http_test_support.hpp"

#include <boost/asio/write.hpp>

#include <array>
#include <stdexcept>
#include <thread>

namespace benchd::http::testing {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

bool waitFor(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline)
      return condition();
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

RawClient::RawClient(std::uint16_t port, std::optional<int> receive_buffer_bytes) : socket_(io_) {
  socket_.open(tcp::v4());
  if (receive_buffer_bytes)
    socket_.set_option(asio::socket_base::receive_buffer_size(*receive_buffer_bytes));
  socket_.connect(tcp::endpoint(asio::ip::address_v4::loopback(), port));
}

bool RawClient::send(std::string_view bytes) {
  error_code error;
  asio::write(socket_, asio::buffer(bytes.data(), bytes.size()), error);
  return !error;
}

bool RawClient::readOnce(std::chrono::steady_clock::time_point deadline) {
  std::array<char, 16384> chunk{};
  bool done = false;
  error_code result;
  std::size_t received = 0;
  socket_.async_read_some(asio::buffer(chunk), [&](error_code error, std::size_t bytes) {
    result = error;
    received = bytes;
    done = true;
  });
  io_.restart();
  while (!done && std::chrono::steady_clock::now() < deadline)
    io_.run_one_until(deadline);
  if (!done) {
    error_code ignored;
    socket_.cancel(ignored);
    io_.restart();
    while (!done)
      io_.run_one();
    received_.append(chunk.data(), received);
    return false;
  }
  received_.append(chunk.data(), received);
  if (result)
    closed_ = true;
  return !result;
}

bool RawClient::readUntil(const std::function<bool(const std::string&)>& done,
                          std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done(received_)) {
    if (closed_ || !readOnce(deadline))
      return done(received_);
  }
  return true;
}

bool RawClient::waitClosed(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!closed_) {
    if (!readOnce(deadline) && !closed_)
      return false;
  }
  return true;
}

std::optional<std::string> RawClient::readResponse(std::chrono::milliseconds timeout) {
  std::size_t total = 0;
  const bool complete = readUntil(
      [&](const std::string& text) {
        const auto end = text.find("\r\n\r\n");
        if (end == std::string::npos)
          return false;
        std::size_t length = 0;
        const auto at = text.find("Content-Length: ");
        if (at != std::string::npos && at < end)
          length = std::stoul(text.substr(at + 16));
        total = end + 4 + length;
        return text.size() >= total;
      },
      timeout);
  if (!complete)
    return std::nullopt;
  std::string response = received_.substr(0, total);
  received_.erase(0, total);
  return response;
}

void RawClient::close() {
  error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

void RawClient::shutdownSend() {
  error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_send, ignored);
}

unsigned statusOf(std::string_view response) {
  if (response.size() < 12 || response.substr(0, 5) != "HTTP/")
    return 0;
  const auto space = response.find(' ');
  if (space == std::string_view::npos || space + 4 > response.size())
    return 0;
  unsigned status = 0;
  for (std::size_t i = space + 1; i < space + 4; ++i) {
    if (response[i] < '0' || response[i] > '9')
      return 0;
    status = status * 10 + static_cast<unsigned>(response[i] - '0');
  }
  return status;
}

SseClient::SseClient(std::uint16_t port, const std::string& target,
                     const std::map<std::string, std::string>& headers,
                     std::optional<int> receive_buffer_bytes)
    : raw_(port, receive_buffer_bytes) {
  std::string request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (const auto& [name, value] : headers)
    request.append(name).append(": ").append(value).append("\r\n");
  request += "Accept: text/event-stream\r\n\r\n";
  if (!raw_.send(request))
    throw std::runtime_error("SseClient: cannot send the request");
  if (!raw_.readUntil(
          [](const std::string& text) { return text.find("\r\n\r\n") != std::string::npos; }))
    throw std::runtime_error("SseClient: no response header");
  const auto end = raw_.received().find("\r\n\r\n");
  head_ = raw_.received().substr(0, end + 2);
  status_ = statusOf(head_);
  if (status_ != 200) {
    raw_.received().erase(0, end + 4);
    std::size_t length = 0;
    const auto at = head_.find("Content-Length: ");
    if (at != std::string::npos)
      length = std::stoul(head_.substr(at + 16));
    raw_.readUntil([&](const std::string& text) { return text.size() >= length; });
    plain_body_ = raw_.received();
    return;
  }
  raw_.received().erase(0, end + 4);
  decodeChunks();
}

void SseClient::decodeChunks() {
  auto& in = raw_.received();
  while (!ended_) {
    const auto line_end = in.find("\r\n");
    if (line_end == std::string::npos)
      return;
    const std::size_t size = std::stoul(in.substr(0, line_end), nullptr, 16);
    if (size == 0) {
      if (in.size() < line_end + 4)
        return;
      in.erase(0, line_end + 4);
      ended_ = true;
      break;
    }
    if (in.size() < line_end + 2 + size + 2)
      return;
    decoded_ += in.substr(line_end + 2, size);
    in.erase(0, line_end + 2 + size + 2);
  }
}

void SseClient::parseLines() {
  // The server ends lines with LF only; that is all this test parser needs.
  std::size_t line_end = 0;
  while ((line_end = decoded_.find('\n')) != std::string::npos) {
    const std::string line = decoded_.substr(0, line_end);
    decoded_.erase(0, line_end + 1);
    if (line.empty()) {
      if (pending_has_data_) {
        if (!pending_.data.empty() && pending_.data.back() == '\n')
          pending_.data.pop_back();
        ready_.push_back(pending_);
      }
      pending_.event.clear();
      pending_.data.clear();
      pending_has_data_ = false;
      continue;
    }
    if (line.front() == ':') {
      ++comments_;
      continue;
    }
    const auto colon = line.find(':');
    const std::string name = line.substr(0, colon);
    std::string value = colon == std::string::npos ? std::string() : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ')
      value.erase(0, 1);
    if (name == "data") {
      pending_.data += value + "\n";
      pending_has_data_ = true;
    } else if (name == "id") {
      pending_.id = value;
    } else if (name == "event") {
      pending_.event = value;
    }
  }
}

bool SseClient::pump(std::chrono::steady_clock::time_point deadline) {
  const auto before = raw_.received().size();
  const auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  if (remaining <= 0ms || raw_.closed())
    return false;
  const bool got =
      raw_.readUntil([&](const std::string& text) { return text.size() > before; }, remaining);
  decodeChunks();
  parseLines();
  return got;
}

std::optional<ReceivedEvent> SseClient::next(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  parseLines();
  while (ready_.empty()) {
    if (ended_ || !pump(deadline))
      break;
  }
  if (ready_.empty())
    return std::nullopt;
  auto event = ready_.front();
  ready_.erase(ready_.begin());
  return event;
}

bool SseClient::waitComments(std::size_t count, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  parseLines();
  while (comments_ < count) {
    if (ended_ || !pump(deadline))
      return comments_ >= count;
  }
  return true;
}

bool SseClient::waitEnd(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!ended_) {
    if (!pump(deadline))
      return ended_;
  }
  return true;
}

}  // namespace benchd::http::testing
