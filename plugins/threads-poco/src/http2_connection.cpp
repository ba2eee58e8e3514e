#include "http2_connection.hpp"

#include "deadline_socket.hpp"
#include "request_handler.hpp"

#include <benchd/h2_blocking/http2_pump.hpp>
#include <benchd/sdk/limits.hpp>

#include <Poco/Exception.h>
#include <Poco/Runnable.h>
#include <Poco/ThreadPool.h>

#include <poll.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <functional>
#include <utility>

namespace benchd::threads_poco {

namespace {

/// The connection's socket (in clear or TLS) as the pump reads and writes it: it waits in poll()
/// on the socket and the pump's wake descriptors; a read, once the socket is readable, has
/// kIoTimeout in total, which only a TLS record cut short ever waits for.
class PocoConnectionIo final : public h2_blocking::ConnectionIo {
 public:
  PocoConnectionIo(Poco::Net::StreamSocket& socket, DeadlineSocketImpl& impl)
      : socket_(socket), impl_(impl) {}

  h2_blocking::ReadOutcome readOrWake(char* buffer, std::size_t size, std::span<const int> wake_fds,
                                      std::chrono::milliseconds timeout) override {
    using Kind = h2_blocking::ReadOutcome::Kind;
    // TLS's decrypted bytes are read at once: poll() cannot see them.
    if (!impl_.hasPendingInput()) {
      std::array<pollfd, 4> watched{pollfd{impl_.sockfd(), POLLIN, 0}};
      std::size_t count = 1;
      for (const int fd : wake_fds.first(std::min(wake_fds.size(), watched.size() - 1)))
        watched[count++] = pollfd{fd, POLLIN, 0};
      const int ready = ::poll(
          watched.data(), count,
          timeout.count() < 0 ? -1
                              : static_cast<int>(std::min<std::int64_t>(timeout.count(), INT_MAX)));
      if (ready < 0)
        return {errno == EINTR ? Kind::kWoken : Kind::kEnded, 0};
      if (ready == 0)
        return {Kind::kTimedOut, 0};
      if (watched[0].revents == 0)
        return {Kind::kWoken, 0};
    }
    try {
      impl_.setDeadline(std::chrono::steady_clock::now() + sdk::kIoTimeout);
      const int got =
          socket_.receiveBytes(buffer, static_cast<int>(std::min<std::size_t>(size, INT_MAX)));
      impl_.clearDeadline();
      if (got <= 0)
        return {Kind::kEnded, 0};
      return {Kind::kInput, static_cast<std::size_t>(got)};
    } catch (const Poco::Exception&) {
      return {Kind::kEnded, 0};
    }
  }

  bool writeAll(std::string_view bytes) override {
    try {
      socket_.sendBytes(bytes.data(), static_cast<int>(bytes.size()));
      return true;
    } catch (const Poco::Exception&) {
      return false;
    }
  }

 private:
  Poco::Net::StreamSocket& socket_;
  DeadlineSocketImpl& impl_;
};

/// A stream's task on the server's Poco pool; deletes itself once run.
class StreamTask final : public Poco::Runnable {
 public:
  explicit StreamTask(std::function<void()> task) : task_(std::move(task)) {}
  void run() override {
    task_();
    delete this;
  }

 private:
  std::function<void()> task_;
};

class PocoStreamRunner final : public h2_blocking::StreamRunner {
 public:
  explicit PocoStreamRunner(Poco::ThreadPool& pool) : pool_(pool) {}

  bool tryRun(std::function<void()> task) override {
    auto* runnable = new StreamTask(std::move(task));
    try {
      pool_.start(*runnable);
      return true;
    } catch (const Poco::Exception&) {
      delete runnable;  // no thread left (NoThreadAvailableException), or none could start
      return false;
    }
  }

 private:
  Poco::ThreadPool& pool_;
};

}  // namespace

void serveHttp2Connection(ServerState& state, Poco::Net::StreamSocket& socket,
                          DeadlineSocketImpl& impl, std::string_view received) {
  PocoConnectionIo io(socket, impl);
  PocoStreamRunner runner(*state.stream_pool);
  h2_blocking::PumpContext context;
  context.drain_fd = state.drain.fd();
  context.requests_in_flight = &state.requests_in_flight;
  context.requests_served = &state.requests_served;
  context.server_name = "benchd threads-poco";
  const h2_blocking::ServeStream serve = [&state](const h2_session::StreamRequest& request,
                                                  int gone_fd) {
    return serveStream(state, request, gone_fd);
  };
  h2_blocking::serveHttp2(io, received, serve, runner, context);
}

}  // namespace benchd::threads_poco
