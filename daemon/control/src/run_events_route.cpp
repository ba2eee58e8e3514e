#include "api_support.hpp"

#include <benchd/control/control_api.hpp>

#include <charconv>
#include <deque>
#include <memory>
#include <mutex>
#include <variant>

namespace benchd::control {
namespace {

/// Stored events one connection replays at most (a resume far behind gets them in pages: the
/// stream ends after a page and the client reconnects with its Last-Event-ID, as SSE clients
/// do). Well below the per-stream queue bound, so a replay never trips the slow-client cut-off
/// by itself.
constexpr std::size_t kReplayPageBytes = std::size_t{512} * 1024;
static_assert(kReplayPageBytes <= kEventStreamQueueBytes / 2);
/// Stored events read for one page at most (a snapshot is about 1 KiB).
constexpr std::size_t kReplayPageEvents = 2000;
/// The reconnection delay suggested with the first replayed event (clients keep it).
constexpr std::chrono::milliseconds kPageRetry{100};

/// One stream's link to the queue. Shared by the listener (queue thread) and the callbacks
/// (server threads); every member is guarded by `mutex`.
struct Subscription {
  std::mutex mutex;
  std::optional<std::uint64_t> handle;
  bool catching_up = true;      ///< live events are held until the stored ones are sent
  std::deque<RunEvent> held;    ///< live events that arrived while catching up
  std::uint64_t last_sent = 0;  ///< sequence of the last event sent
  bool ended = false;           ///< an end event was sent (or the stream closed)
};

/// Sends `event` unless it was sent already (replayed and then heard live, or the reverse).
/// `end` is always sent (once): a client that gave a Last-Event-ID at or past it (a stale id)
/// must still learn that the run is over.
void send(Subscription& subscription, http::EventSink& sink, const RunEvent& event) {
  if (subscription.ended || (event.sequence <= subscription.last_sent && event.type != "end")) {
    return;
  }
  subscription.last_sent = event.sequence;
  sink.push({std::to_string(event.sequence), event.type, event.data, {}});
  if (event.type == "end") {
    subscription.ended = true;
    sink.close();
  }
}

/// The Last-Event-ID a client sent: nothing when absent, an error text when not a sequence.
std::variant<std::optional<std::uint64_t>, std::string> lastEventIdOf(
    const http::Request& request) {
  const std::optional<std::string_view> text = request.lastEventId();
  if (!text || text->empty()) {
    return std::optional<std::uint64_t>{};
  }
  std::uint64_t sequence = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), sequence);
  if (error != std::errc{} || end != text->data() + text->size()) {
    return "expected the id of an event of this stream (a whole number), got '" +
           std::string(*text) + "'";
  }
  return std::optional<std::uint64_t>{sequence};
}

}  // namespace

void ControlApi::addEventRoute(http::Router& router) {
  router.add("GET", "/api/v1/runs/{id}/events", [this](const http::Request& request) {
    const std::optional<store::RunRecord> record = runOf(store_, request);
    if (!record) {
      return noSuchRun(request);
    }
    auto resume = lastEventIdOf(request);
    if (const auto* problem = std::get_if<std::string>(&resume)) {
      return fieldProblem(400, "Last-Event-ID", *problem);
    }
    const std::optional<std::uint64_t> resume_after =
        std::get<std::optional<std::uint64_t>>(resume);

    auto subscription = std::make_shared<Subscription>();
    http::EventStreamCallbacks callbacks;
    callbacks.on_open = [this, run = record->id, resume_after, subscription](http::EventSink sink) {
      // 1. Listen first: the queue stores each event before it publishes it, so whatever the
      //    store does not hold yet will still be heard.
      const std::uint64_t handle =
          queue_.subscribe([run, sink, subscription](const RunEvent& event) mutable {
            if (event.run != run) {
              return;
            }
            const std::scoped_lock lock(subscription->mutex);
            if (subscription->catching_up) {
              subscription->held.push_back(event);
            } else {
              send(*subscription, sink, event);
            }
          });
      // 2. What the client missed, from the store: a page at most, read before taking the
      //    subscription's lock (the queue's thread waits on that lock to hand over live events).
      std::vector<store::StoredEvent> missed;
      if (resume_after) {
        missed = store_.events(run, *resume_after, kReplayPageEvents + 1);
      }
      const std::scoped_lock lock(subscription->mutex);
      subscription->handle = handle;
      if (resume_after) {
        subscription->last_sent = *resume_after;
        std::size_t bytes = 0;
        std::size_t count = 0;
        for (const store::StoredEvent& stored : missed) {
          if ((bytes >= kReplayPageBytes || count == kReplayPageEvents) && stored.type != "end") {
            // More than a page behind: end here; the client resumes from the last event.
            sink.comment("more events follow; reconnect with Last-Event-ID");
            subscription->ended = true;
            sink.close();
            return;
          }
          http::Event event{std::to_string(stored.sequence), stored.type, stored.data, {}};
          if (count == 0) {
            event.retry = kPageRetry;
          }
          bytes += stored.data.size();
          ++count;
          subscription->last_sent = stored.sequence;
          sink.push(event);
          if (stored.type == "end") {
            subscription->ended = true;
            sink.close();
            return;
          }
        }
      }
      // 3. Then live, after whatever arrived meanwhile.
      subscription->catching_up = false;
      for (const RunEvent& event : subscription->held) {
        send(*subscription, sink, event);
      }
      subscription->held.clear();
      // A run that is not (or no longer) queued or running has nothing more to say.
      if (!subscription->ended && !queue_.status(run)) {
        const std::optional<store::RunRecord> now = store_.findRun(run);
        rapidjson::StringBuffer buffer;
        JsonWriter json(buffer);
        json.StartObject();
        field(json, "status", now ? store::runStatusName(now->status) : "unknown");
        field(json, "error", now ? now->error : "");
        json.EndObject();
        sink.push({"", "end", buffer.GetString(), {}});
        subscription->ended = true;
        sink.close();
      }
    };
    callbacks.on_close = [this, subscription](http::StreamEnd) {
      std::optional<std::uint64_t> handle;
      {
        const std::scoped_lock lock(subscription->mutex);
        handle = subscription->handle;
        subscription->handle.reset();
      }
      if (handle) {
        queue_.unsubscribe(*handle);
      }
    };
    return http::Response::eventStream(std::move(callbacks));
  });
}

}  // namespace benchd::control
