#include <benchd/asio_common/curl_upstream.hpp>
#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/curl_support/curl_support.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/request_deadline.hpp>
#include <benchd/sdk/service_request.hpp>

#include <boost/asio/error.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <unistd.h>

#include <curl/curl.h>
#include <optional>
#include <stdexcept>
#include <sys/socket.h>
#include <unordered_map>
#include <vector>

namespace benchd::asio_common {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;
using Clock = std::chrono::steady_clock;

namespace {

// Boost.System's categories have a protected non-virtual destructor by design (they are
// static objects, never deleted through the base), which -Wnon-virtual-dtor cannot tell.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class CurlCategory final : public boost::system::error_category {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "curl"; }
  [[nodiscard]] std::string message(int code) const override {
    return curl_easy_strerror(static_cast<CURLcode>(code));
  }
};
#pragma GCC diagnostic pop

}  // namespace

const boost::system::error_category& curlErrorCategory() noexcept {
  static const CurlCategory category;
  return category;
}

/// A socket libcurl opened through openSocket: benchd's, so its place in the upstream capacity
/// and the loop's reactor go with it. Its waits are tagged with `id`, so a wait that completes
/// after the socket was closed (and the descriptor reused) touches nothing.
struct SocketEntry {
  SocketEntry(asio::io_context& io, std::uint64_t serial) : socket(io), id(serial) {}

  tcp::socket socket;
  std::uint64_t id;
  int wanted = 0;  ///< CURL_POLL_IN / CURL_POLL_OUT bits libcurl asked for last
  bool read_waiting = false;
  bool write_waiting = false;
  /// Set when libcurl stops watching the socket (the connection went back to its cache),
  /// cleared when it watches it again (a transfer took it).
  std::optional<Clock::time_point> idle_since;
  bool shut_down = false;  ///< expired: shut down, for libcurl to find dead and close
};

/// One nested call in flight.
struct Transfer {
  CurlUpstream::State* owner = nullptr;
  CURL* easy = nullptr;
  std::uint64_t serial = 0;
  curl_support::AnswerSink answer;
  bool no_capacity = false;
  std::unique_ptr<detail::UpstreamCompletion> done;
  std::optional<ClientWatch::Interruption> interruption;
};

struct CurlUpstream::State {
  explicit State(EventLoop& owner)
      : loop(owner),
        idle_timeout(owner.group.upstreamIdleTimeout()),
        sweep_interval(sdk::upstreamIdleSweepInterval(idle_timeout)),
        timer(owner.io),
        sweep(owner.io) {
    curl_support::initialiseCurlOnce();
    headers = curl_support::nestedCallHeaders();
    multi = newMulti();
  }

  ~State() {
    for (auto& [easy, transfer] : running) {
      curl_multi_remove_handle(multi, easy);
      curl_easy_cleanup(easy);
    }
    running.clear();
    curl_multi_cleanup(multi);  // closes every cached connection through closeSocket
    for (CURL* easy : spare) {
      curl_easy_cleanup(easy);
    }
    curl_slist_free_all(headers);
  }

  State(const State&) = delete;
  State& operator=(const State&) = delete;

  CURLM* newMulti() {
    CURLM* handle = curl_multi_init();
    if (handle == nullptr) {
      throw std::runtime_error("curl_multi_init failed");
    }
    curl_multi_setopt(handle, CURLMOPT_SOCKETFUNCTION, &State::onSocket);
    curl_multi_setopt(handle, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(handle, CURLMOPT_TIMERFUNCTION, &State::onTimer);
    curl_multi_setopt(handle, CURLMOPT_TIMERDATA, this);
    // The cache keeps as many connections as the worker may open (the default, 4 per added
    // handle, would close most of a burst's connections as soon as it ends), and HTTP/1.1
    // connections carry one request at a time, as every client here does.
    curl_multi_setopt(handle, CURLMOPT_MAXCONNECTS, static_cast<long>(sdk::kUpstreamPoolCapacity));
    curl_multi_setopt(handle, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_NOTHING));
    return handle;
  }

  // ---- libcurl's callbacks --------------------------------------------------------------

  static curl_socket_t openSocket(void* data, curlsocktype purpose, curl_sockaddr* address) {
    auto* transfer = static_cast<Transfer*>(data);
    State& state = *transfer->owner;
    if (purpose != CURLSOCKTYPE_IPCXN) {
      return CURL_SOCKET_BAD;
    }
    if (!state.loop.group.upstreamBudget().tryReserve()) {
      transfer->no_capacity = true;
      return CURL_SOCKET_BAD;
    }
    auto entry = std::make_unique<SocketEntry>(state.loop.io, ++state.next_socket_id);
    error_code error;
    entry->socket.open(address->family == AF_INET6 ? tcp::v6() : tcp::v4(), error);
    if (error) {
      state.loop.group.upstreamBudget().release();
      return CURL_SOCKET_BAD;
    }
    const curl_socket_t fd = entry->socket.native_handle();
    state.sockets[fd] = std::move(entry);
    LoopCounters::add(state.loop.counters.upstream_connections_open, 1);
    return fd;
  }

  static int closeSocket(void* data, curl_socket_t fd) {
    auto* state = static_cast<State*>(data);
    const auto found = state->sockets.find(fd);
    if (found == state->sockets.end()) {
      return ::close(fd);  // not one of ours: cannot happen, but never leak a descriptor
    }
    error_code ignored;
    found->second->socket.close(ignored);  // pending waits end as aborted, and find no entry
    state->sockets.erase(found);
    LoopCounters::add(state->loop.counters.upstream_connections_open, -1);
    state->loop.group.upstreamBudget().release();
    return 0;
  }

  static int onSocket(CURL* /*easy*/, curl_socket_t fd, int what, void* data, void* /*socketp*/) {
    auto* state = static_cast<State*>(data);
    const auto found = state->sockets.find(fd);
    if (found == state->sockets.end()) {
      return 0;
    }
    SocketEntry& entry = *found->second;
    if (what == CURL_POLL_REMOVE) {
      entry.wanted = 0;
      entry.idle_since = Clock::now();
      state->scheduleSweep();
      return 0;
    }
    entry.wanted = what;
    entry.idle_since.reset();
    state->arm(fd, entry);
    return 0;
  }

  /// libcurl's timer moves with every transfer it starts or advances. Re-arming the loop's
  /// timer each time costs a timerfd_settime per call (the earliest timer of the loop's
  /// reactor changes): a fifth of the worker's CPU at saturation, measured with perf. So the
  /// timer is re-armed only for an earlier deadline; one that fires before libcurl's deadline
  /// waits again for it, and a zero timeout is a post.
  static int onTimer(CURLM* /*multi*/, long timeout_millis, void* data) {
    auto* state = static_cast<State*>(data);
    if (timeout_millis < 0) {
      state->wanted.reset();  // an armed wait finds nothing wanted and ends
    } else if (timeout_millis == 0) {
      // libcurl must not be called back from inside itself: posted, once.
      state->wanted.reset();
      if (!state->timeout_posted) {
        state->timeout_posted = true;
        asio::post(state->loop.io, [state] {
          state->timeout_posted = false;
          state->act(CURL_SOCKET_TIMEOUT, 0);
        });
      }
    } else {
      state->wanted = Clock::now() + std::chrono::milliseconds(timeout_millis);
      if (!state->armed || *state->wanted < *state->armed) {
        state->armTimer(*state->wanted);
      }
    }
    return 0;
  }

  void armTimer(Clock::time_point deadline) {
    armed = deadline;
    timer.expires_at(deadline);
    timer.async_wait([this](error_code error) {
      if (error == asio::error::operation_aborted) {
        return;  // re-armed (its new wait decides) or the loop is ending
      }
      armed.reset();
      if (!wanted) {
        return;
      }
      if (Clock::now() < *wanted) {
        armTimer(*wanted);
        return;
      }
      wanted.reset();
      act(CURL_SOCKET_TIMEOUT, 0);
    });
  }

  // ---- driving libcurl from the reactor ------------------------------------------------

  /// Waits for what libcurl wants of `fd`, unless such a wait is pending already (a wait for
  /// a direction libcurl no longer wants ends without acting).
  void arm(curl_socket_t fd, SocketEntry& entry) {
    if ((entry.wanted & CURL_POLL_IN) != 0 && !entry.read_waiting) {
      entry.read_waiting = true;
      entry.socket.async_wait(tcp::socket::wait_read, [this, fd, id = entry.id](error_code error) {
        onReady(fd, id, CURL_CSELECT_IN, error);
      });
    }
    if ((entry.wanted & CURL_POLL_OUT) != 0 && !entry.write_waiting) {
      entry.write_waiting = true;
      entry.socket.async_wait(tcp::socket::wait_write, [this, fd, id = entry.id](error_code error) {
        onReady(fd, id, CURL_CSELECT_OUT, error);
      });
    }
  }

  void onReady(curl_socket_t fd, std::uint64_t id, int direction, error_code error) {
    if (error == asio::error::operation_aborted) {
      return;  // closed (closeSocket): nothing of it is left; waits are never cancelled else
    }
    const auto found = sockets.find(fd);
    if (found == sockets.end() || found->second->id != id) {
      return;  // closed meanwhile
    }
    SocketEntry& entry = *found->second;
    const int wanted_bit = direction == CURL_CSELECT_IN ? CURL_POLL_IN : CURL_POLL_OUT;
    (direction == CURL_CSELECT_IN ? entry.read_waiting : entry.write_waiting) = false;
    if ((entry.wanted & wanted_bit) == 0) {
      return;
    }
    act(fd, direction | (error ? CURL_CSELECT_ERR : 0));
    const auto still = sockets.find(fd);
    if (still != sockets.end() && still->second->id == id) {
      arm(fd, *still->second);
    }
  }

  void act(curl_socket_t fd, int events) {
    int still_running = 0;
    curl_multi_socket_action(multi, fd, events, &still_running);
    int queued = 0;
    while (CURLMsg* message = curl_multi_info_read(multi, &queued)) {
      if (message->msg == CURLMSG_DONE) {
        finish(message->easy_handle, message->data.result);
      }
    }
  }

  // ---- transfers -----------------------------------------------------------------------

  void start(const std::string& target, ClientWatch& watch,
             std::unique_ptr<detail::UpstreamCompletion> done) {
    if (watch.clientGone()) {
      done->complete(UpstreamResult{asio::error::operation_aborted, 0, {}});
      return;
    }
    if (base_url.empty()) {
      const tcp::endpoint& self = loop.group.selfEndpoint();
      base_url = curl_support::baseUrlOf(self.address().to_string(), self.port());
    }
    CURL* easy = takeHandle();
    if (easy == nullptr) {
      done->complete(UpstreamResult{asio::error::no_memory, 0, {}});
      return;
    }
    auto transfer = std::make_unique<Transfer>();
    transfer->owner = this;
    transfer->easy = easy;
    transfer->serial = ++next_transfer_serial;
    transfer->done = std::move(done);
    curl_support::setNestedCallOptions(easy, headers, transfer->answer, idle_timeout);
    curl_support::setCallOptions(
        easy, base_url + target,
        sdk::upstreamResponseTimeoutFor(target, loop.group.upstreamResponseMargin()));
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, &State::openSocket);
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, transfer.get());
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, &State::closeSocket);
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETDATA, this);
    // Removing a transfer from the multi handle closes its connection, which ends the wait
    // of the request it forwarded in turn. Posted: the watch runs this from inside itself.
    transfer->interruption.emplace(watch.interruptWith([this, easy, serial = transfer->serial] {
      asio::post(loop.io, [this, easy, serial] { abort(easy, serial); });
    }));
    if (curl_multi_add_handle(multi, easy) != CURLM_OK) {
      transfer->interruption.reset();
      spare.push_back(easy);
      transfer->done->complete(UpstreamResult{asio::error::no_memory, 0, {}});
      return;
    }
    running.emplace(easy, std::move(transfer));
  }

  void finish(CURL* easy, CURLcode code) {
    const auto found = running.find(easy);
    if (found == running.end()) {
      return;
    }
    std::unique_ptr<Transfer> transfer = std::move(found->second);
    running.erase(found);
    curl_multi_remove_handle(multi, easy);
    UpstreamResult result;
    if (code == CURLE_OK) {
      long status = 0;
      curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
      result.status = static_cast<unsigned>(status);
      result.body = std::move(transfer->answer.body);
    } else if (transfer->no_capacity) {
      result.error = asio::error::no_buffer_space;
    } else if (code == CURLE_OPERATION_TIMEDOUT) {
      result.error = asio::error::timed_out;
    } else if (transfer->answer.too_large) {
      result.error = asio::error::message_size;
    } else {
      result.error = error_code(static_cast<int>(code), curlErrorCategory());
    }
    spare.push_back(easy);
    transfer->interruption.reset();
    transfer->done->complete(std::move(result));
  }

  /// The client of the request this call serves has gone.
  void abort(CURL* easy, std::uint64_t serial) {
    const auto found = running.find(easy);
    if (found == running.end() || found->second->serial != serial) {
      return;  // finished meanwhile
    }
    std::unique_ptr<Transfer> transfer = std::move(found->second);
    running.erase(found);
    curl_multi_remove_handle(multi, easy);
    spare.push_back(easy);
    transfer->interruption.reset();
    transfer->done->complete(UpstreamResult{asio::error::operation_aborted, 0, {}});
  }

  CURL* takeHandle() {
    if (!spare.empty()) {
      CURL* easy = spare.back();
      spare.pop_back();
      return easy;
    }
    return curl_easy_init();
  }

  // ---- idle connections ----------------------------------------------------------------

  void scheduleSweep() {
    if (sweep_pending) {
      return;
    }
    sweep_pending = true;
    sweep.expires_after(sweep_interval);
    sweep.async_wait([this](error_code error) {
      sweep_pending = false;
      if (error != asio::error::operation_aborted) {
        closeExpired(Clock::now() - idle_timeout);
      }
    });
  }

  /// Shuts down the connections idle since before `cutoff`, which libcurl then finds dead
  /// when it next looks for one; once nothing runs and every idle connection is shut, a new
  /// multi handle replaces the old, whose cleanup closes them all now.
  void closeExpired(Clock::time_point cutoff) {
    bool all_shut = true;
    bool any_idle = false;
    for (auto& [fd, entry] : sockets) {
      if (!entry->idle_since) {
        all_shut = false;
        continue;
      }
      any_idle = true;
      if (!entry->shut_down && *entry->idle_since <= cutoff) {
        ::shutdown(fd, SHUT_RDWR);
        entry->shut_down = true;
      }
      all_shut = all_shut && entry->shut_down;
    }
    if (running.empty() && any_idle && all_shut) {
      wanted.reset();
      curl_multi_cleanup(multi);
      multi = newMulti();
    }
    if (!sockets.empty()) {
      scheduleSweep();
    }
  }

  EventLoop& loop;
  std::chrono::milliseconds idle_timeout;
  std::chrono::milliseconds sweep_interval;
  curl_slist* headers = nullptr;
  CURLM* multi = nullptr;
  asio::steady_timer timer;
  std::optional<Clock::time_point> wanted;  ///< libcurl's timer: when it wants a timeout action
  std::optional<Clock::time_point> armed;   ///< when `timer` fires
  bool timeout_posted = false;              ///< a zero timeout's action is queued
  asio::steady_timer sweep;
  bool sweep_pending = false;
  std::string base_url;
  std::unordered_map<curl_socket_t, std::unique_ptr<SocketEntry>> sockets;
  std::unordered_map<CURL*, std::unique_ptr<Transfer>> running;
  std::vector<CURL*> spare;  ///< easy handles of finished transfers, for the next ones
  std::uint64_t next_socket_id = 0;
  std::uint64_t next_transfer_serial = 0;
};

CurlUpstream::CurlUpstream(EventLoop& loop) : state_(std::make_unique<State>(loop)) {}

CurlUpstream::~CurlUpstream() = default;

asio::io_context::executor_type CurlUpstream::executor() const noexcept {
  return state_->loop.io.get_executor();
}

void CurlUpstream::start(const std::string& target, ClientWatch& watch,
                         std::unique_ptr<detail::UpstreamCompletion> done) {
  state_->start(target, watch, std::move(done));
}

void CurlUpstream::closeIdle() {
  state_->closeExpired(Clock::time_point::max());
}

}  // namespace benchd::asio_common
