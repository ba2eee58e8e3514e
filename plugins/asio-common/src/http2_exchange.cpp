#include <benchd/asio_common/http2_exchange.hpp>
#include <benchd/sdk/limits.hpp>

namespace benchd::asio_common {

namespace {

constexpr std::chrono::hours kBusyReadTimeout{24};

}  // namespace

Http2Exchange::Http2Exchange(EventLoop& loop, std::function<void(bool idle)> mark_idle,
                             boost::beast::tcp_stream& tcp, std::string server_name, Model model)
    : loop_(loop),
      mark_idle_(std::move(mark_idle)),
      tcp_(tcp),
      model_(std::move(model)),
      session_({[this](h2_session::StreamRequest request) {
                  departures_[request.stream_id];  // before the answer, so a reset is seen
                  mark_idle_(false);
                  model_.start_stream(std::move(request));
                },
                [this](std::int32_t stream_id) {
                  if (const auto found = departures_.find(stream_id); found != departures_.end())
                    found->second.depart();
                }},
               std::move(server_name)) {}

bool Http2Exchange::receive(std::string_view bytes) {
  const bool kept = session_.receive(bytes);
  streamsChanged();
  flush();
  return kept;
}

std::chrono::steady_clock::duration Http2Exchange::readTimeout() const {
  if (departures_.empty())
    return sdk::kIoTimeout;
  return kBusyReadTimeout;
}

StreamDeparture* Http2Exchange::departureOf(std::int32_t stream_id) {
  return &departures_[stream_id];
}

void Http2Exchange::finishStream(std::int32_t stream_id, const std::optional<sdk::Reply>& reply,
                                 std::unique_ptr<InFlightRequest> in_flight) {
  if (reply)
    session_.respond(stream_id, *reply);
  departures_.erase(stream_id);
  streamsChanged();
  flush();
  if (!reply || closed_)
    return;  // in_flight goes unanswered
  // The reply's frames are in pending_, which the writer (running, or started by flush) takes
  // as its next batch; with nothing pending they went out with a batch already taken.
  const std::uint64_t batch = pending_.empty() ? taken_ : taken_ + 1;
  if (batch <= written_) {
    in_flight->answered();
    return;
  }
  unsent_answers_.push_back({batch, std::move(in_flight)});
}

bool Http2Exchange::nextOutput(std::string& out) {
  // The writer asks again only when its last batch is written.
  written_ = taken_;
  answerWritten();
  out.clear();
  if (!closed_)
    session_.takeOutput(pending_);
  if (closed_ || pending_.empty()) {
    writing_ = false;
    if (session_.finished())
      close();
    return false;
  }
  out.swap(pending_);
  ++taken_;
  return true;
}

void Http2Exchange::endReading() {
  session_.endConnection();
  flush();
}

void Http2Exchange::close() {
  if (closed_)
    return;
  closed_ = true;
  unsent_answers_.clear();  // their replies may not have reached the client: unanswered
  closeStream(tcp_);
}

void Http2Exchange::answerWritten() {
  while (!unsent_answers_.empty() && unsent_answers_.front().batch <= written_) {
    unsent_answers_.front().in_flight->answered();
    unsent_answers_.pop_front();
  }
}

void Http2Exchange::flush() {
  if (closed_)
    return;
  session_.takeOutput(pending_);
  if (writing_ || pending_.empty())
    return;
  writing_ = true;
  model_.start_writer();
}

void Http2Exchange::streamsChanged() {
  // A draining server ends the connection once its streams are answered: HTTP/2's
  // "Connection: close".
  if (loop_.group.draining())
    session_.goAway();
  mark_idle_(departures_.empty());
}

}  // namespace benchd::asio_common
