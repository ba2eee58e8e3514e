#include "http2_connection.hpp"

#include "deadline_socket.hpp"
#include "request_handler.hpp"

#include <benchd/h2_blocking/http2_pump.hpp>
#include <benchd/sdk/limits.hpp>

#include <Poco/Exception.h>
#include <Poco/Runnable.h>
#include <Poco/ThreadPool.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <functional>
#include <utility>

namespace benchd::threads_poco {

namespace {

/// The connection's socket (in clear or TLS) as the pump reads and writes it; a read has
/// kIoTimeout in total, which only a TLS record cut short ever waits for.
class PocoConnectionIo final : public h2_blocking::ConnectionIo {
 public:
  PocoConnectionIo(Poco::Net::StreamSocket& socket, DeadlineSocketImpl& impl)
      : socket_(socket), impl_(impl) {}

  [[nodiscard]] int fd() const noexcept override { return impl_.sockfd(); }
  [[nodiscard]] bool inputBuffered() const noexcept override { return impl_.hasPendingInput(); }

  std::ptrdiff_t readSome(char* buffer, std::size_t size) override {
    try {
      impl_.setDeadline(std::chrono::steady_clock::now() + sdk::kIoTimeout);
      const int got =
          socket_.receiveBytes(buffer, static_cast<int>(std::min<std::size_t>(size, INT_MAX)));
      impl_.clearDeadline();
      return got;
    } catch (const Poco::Exception&) {
      return -1;
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
  context.idle_timeout = sdk::kIoTimeout;
  const h2_blocking::ServeStream serve = [&state](const h2_session::StreamRequest& request,
                                                  int gone_fd) {
    return serveStream(state, request, gone_fd);
  };
  h2_blocking::serveHttp2(io, received, serve, runner, context);
}

}  // namespace benchd::threads_poco
