#include <benchd/h2_blocking/http2_pump.hpp>

#include <poll.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unordered_map>
#include <utility>
#include <vector>

namespace benchd::h2_blocking {

namespace {

/// A stream's reply, or none (its client left, or the stop gave it up).
struct Completion {
  std::int32_t stream_id = 0;
  std::optional<sdk::Reply> reply;
};

/// What the streams' tasks hand back to the pump, shared by both: a task's last steps (the wake
/// and the notification) come after the pump may have seen it end and gone.
struct Completions {
  Completions() : wake_fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  ~Completions() {
    if (wake_fd >= 0)
      ::close(wake_fd);
  }
  Completions(const Completions&) = delete;
  Completions& operator=(const Completions&) = delete;

  void add(Completion completion) {
    {
      const std::lock_guard lock(mutex);
      done.push_back(std::move(completion));
      --running;
    }
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto written = ::write(wake_fd, &one, sizeof one);
    all_ended.notify_all();
  }

  std::mutex mutex;
  std::condition_variable all_ended;
  std::vector<Completion> done;
  int running = 0;
  /// Readable while `done` may hold completions the pump has not taken.
  const int wake_fd;
};

/// The pump: one connection's session, its streams' watch descriptors and its counters. Used
/// by the connection's thread only.
class Pump {
 public:
  Pump(ConnectionIo& io, const ServeStream& serve, StreamRunner& runner, const PumpContext& context)
      : io_(io),
        serve_(serve),
        runner_(runner),
        context_(context),
        completions_(std::make_shared<Completions>()),
        session_(h2_session::ServerSession::Handlers{
                     [this](h2_session::StreamRequest request) { start(std::move(request)); },
                     [this](std::int32_t stream_id) { streamGone(stream_id); }},
                 context.server_name) {}

  ~Pump() {
    session_.endConnection();  // every stream still waiting is gone: its watch closes below
    for (const auto& [stream_id, watch_fd] : watches_)
      ::close(watch_fd);
    watches_.clear();
    std::unique_lock lock(completions_->mutex);
    completions_->all_ended.wait(lock, [this] { return completions_->running == 0; });
    release(held_);
  }
  Pump(const Pump&) = delete;
  Pump& operator=(const Pump&) = delete;

  void run(std::string_view received) {
    bool intact = received.empty() || session_.receive(received);
    bool going_away = false;
    std::string output;
    std::array<char, 16384> input{};
    for (;;) {
      output.clear();
      session_.takeOutput(output);
      if (!output.empty()) {
        if (!io_.writeAll(output))
          return;
        release(written_replies_);
        if (context_.requests_served != nullptr)
          context_.requests_served->fetch_add(written_replies_, std::memory_order_relaxed);
        written_replies_ = 0;
      }
      if (!intact || session_.finished() || completions_->wake_fd < 0)
        return;

      const std::array<int, 3> wake_fds{completions_->wake_fd, going_away ? -1 : context_.drain_fd,
                                        context_.stop_fd};
      // Streams in flight have deadlines of their own; an idle connection has the timeout.
      const auto timeout = held_ > 0 ? std::chrono::milliseconds(-1) : context_.idle_timeout;
      const ReadOutcome outcome = io_.readOrWake(input.data(), input.size(), wake_fds, timeout);
      switch (outcome.kind) {
        case ReadOutcome::Kind::kInput:
          intact = session_.receive(std::string_view(input.data(), outcome.bytes));
          break;
        case ReadOutcome::Kind::kEnded:
          return;
        case ReadOutcome::Kind::kTimedOut:
          session_.goAway();  // idle too long
          going_away = true;
          break;
        case ReadOutcome::Kind::kWoken:
          break;
      }
      // Which moments came, whatever ended the read: input that keeps coming must not keep
      // the replies waiting.
      std::array<pollfd, 3> woken{pollfd{wake_fds[0], POLLIN, 0}, pollfd{wake_fds[1], POLLIN, 0},
                                  pollfd{wake_fds[2], POLLIN, 0}};
      if (::poll(woken.data(), woken.size(), 0) > 0) {
        if (woken[2].revents != 0)
          return;  // the stop gave up
        if (woken[1].revents != 0) {
          session_.goAway();  // the drain: streams in flight are still answered
          going_away = true;
        }
        if (woken[0].revents != 0)
          takeCompletions();
      }
    }
  }

 private:
  /// on_request: the stream's task goes to a pool thread with the watch's other end.
  void start(h2_session::StreamRequest request) {
    if (context_.requests_in_flight != nullptr)
      context_.requests_in_flight->fetch_add(1, std::memory_order_relaxed);
    ++held_;
    std::array<int, 2> ends{-1, -1};
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends.data()) == 0) {
      watches_.emplace(request.stream_id, ends[0]);
    } else {
      ends = {-1, -1};  // out of descriptors: the stream's wait is not watched
    }
    {
      const std::lock_guard lock(completions_->mutex);
      ++completions_->running;
    }
    const ServeStream* serve = &serve_;
    std::function<void()> task = [serve, completions = completions_, request = std::move(request),
                                  gone_fd = ends[1]] {
      Completion completion{request.stream_id, {}};
      try {
        completion.reply = (*serve)(request, gone_fd);
      } catch (...) {
        completion.reply = sdk::errorReply(500, "the stream's request failed");
      }
      if (gone_fd >= 0)
        ::close(gone_fd);
      completions->add(std::move(completion));
    };
    if (!runner_.tryRun(task))
      task();
  }

  /// on_stream_gone: the client reset the stream, or the connection ended.
  void streamGone(std::int32_t stream_id) { closeWatch(stream_id); }

  void closeWatch(std::int32_t stream_id) {
    const auto found = watches_.find(stream_id);
    if (found == watches_.end())
      return;
    ::close(found->second);  // the task's end turns POLLRDHUP
    watches_.erase(found);
  }

  void takeCompletions() {
    std::uint64_t count = 0;
    [[maybe_unused]] const auto got = ::read(completions_->wake_fd, &count, sizeof count);
    std::vector<Completion> done;
    {
      const std::lock_guard lock(completions_->mutex);
      done.swap(completions_->done);
    }
    for (Completion& completion : done) {
      closeWatch(completion.stream_id);
      if (completion.reply) {
        // In flight until the write that carries it (run()); a reset stream's reply is dropped
        // by the session and counted with the next write all the same.
        session_.respond(completion.stream_id, *completion.reply);
        ++written_replies_;
      } else {
        release(1);
      }
    }
  }

  /// Ends `count` of the connection's streams in flight.
  void release(std::int64_t count) {
    if (count == 0)
      return;
    held_ -= count;
    if (context_.requests_in_flight != nullptr)
      context_.requests_in_flight->fetch_sub(count, std::memory_order_relaxed);
  }

  ConnectionIo& io_;
  const ServeStream& serve_;
  StreamRunner& runner_;
  const PumpContext& context_;
  std::shared_ptr<Completions> completions_;
  h2_session::ServerSession session_;
  /// The pump's end of each stream's watch, by stream id, while its task may wait.
  std::unordered_map<std::int32_t, int> watches_;
  std::int64_t held_ = 0;             ///< streams counted in flight by this connection
  std::int64_t written_replies_ = 0;  ///< replies submitted since the last write
};

}  // namespace

void serveHttp2(ConnectionIo& io, std::string_view received, const ServeStream& serve,
                StreamRunner& runner, const PumpContext& context) {
  Pump pump(io, serve, runner, context);
  pump.run(received);
}

}  // namespace benchd::h2_blocking
