#include <benchd/h2_session/server_session.hpp>
#include <benchd/sdk/limits.hpp>

#include <algorithm>
#include <array>
#include <nghttp2/nghttp2.h>
#include <stdexcept>
#include <unordered_map>

namespace benchd::h2_session {

namespace {

/// What HPACK counts per header field besides its name and value (RFC 9113 section 6.5.2),
/// so the header limit means the same as SETTINGS_MAX_HEADER_LIST_SIZE.
constexpr std::size_t kHeaderFieldOverhead = 32;

struct Stream {
  StreamRequest request;
  std::size_t header_bytes = 0;
  bool body_too_large = false;
  bool handed_over = false;
  bool answered = false;
  std::string reply_body;
  std::size_t reply_sent = 0;
};

nghttp2_nv field(std::string_view name, std::string_view value) {
  // nghttp2 copies names and values when the response is submitted (no NO_COPY flags).
  return {const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>(name.data())),
          const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>(value.data())),
          name.size(), value.size(), NGHTTP2_NV_FLAG_NONE};
}

}  // namespace

struct ServerSession::Impl {
  Handlers handlers;
  std::string server_name;
  nghttp2_session* session = nullptr;
  std::unordered_map<std::int32_t, Stream> streams;
  /// Filled by nghttp2's callbacks inside mem_recv, handed to the handlers after it returns, so
  /// a handler never re-enters nghttp2 from inside one of its callbacks.
  std::vector<std::int32_t> completed;
  std::vector<std::int32_t> gone;
  std::size_t waiting = 0;
  bool went_away = false;

  Stream* find(std::int32_t stream_id) {
    const auto found = streams.find(stream_id);
    return found == streams.end() ? nullptr : &found->second;
  }

  void dispatch() {
    // Handlers may respond at once, which may close and erase streams: take the lists first.
    std::vector<std::int32_t> ready;
    ready.swap(completed);
    for (const std::int32_t stream_id : ready) {
      Stream* stream = find(stream_id);
      if (stream == nullptr)
        continue;
      if (stream->body_too_large) {
        stream->handed_over = true;
        ++waiting;
        respondTo(stream_id, *stream,
                  sdk::errorReply(413, "request body over " +
                                           std::to_string(sdk::kMaxRequestBodyBytes) + " bytes"));
        continue;
      }
      stream->handed_over = true;
      ++waiting;
      handlers.on_request(std::move(stream->request));
    }
    std::vector<std::int32_t> ended;
    ended.swap(gone);
    for (const std::int32_t stream_id : ended)
      handlers.on_stream_gone(stream_id);
  }

  void respondTo(std::int32_t stream_id, Stream& stream, const sdk::Reply& reply) {
    stream.answered = true;
    --waiting;
    const std::string status = std::to_string(reply.status);
    const std::string length = std::to_string(reply.body.size());
    std::array<nghttp2_nv, 5> fields{};
    std::size_t count = 0;
    fields[count++] = field(":status", status);
    fields[count++] = field("server", server_name);
    if (!reply.body.empty() || reply.status != 200)
      fields[count++] = field("content-type", reply.content_type);
    if (!reply.allow.empty())
      fields[count++] = field("allow", reply.allow);
    fields[count++] = field("content-length", length);
    if (reply.body.empty()) {
      nghttp2_submit_response(session, stream_id, fields.data(), count, nullptr);
      return;
    }
    stream.reply_body = reply.body;
    nghttp2_data_provider provider{};
    provider.read_callback = readReplyBody;
    nghttp2_submit_response(session, stream_id, fields.data(), count, &provider);
  }

  static Impl& of(void* user_data) { return *static_cast<Impl*>(user_data); }

  static int onBeginHeaders(nghttp2_session* /*session*/, const nghttp2_frame* frame,
                            void* user_data) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
      return 0;
    Stream& stream = of(user_data).streams[frame->hd.stream_id];
    stream.request.stream_id = frame->hd.stream_id;
    return 0;
  }

  static int onHeader(nghttp2_session* /*session*/, const nghttp2_frame* frame,
                      const std::uint8_t* name, std::size_t name_size, const std::uint8_t* value,
                      std::size_t value_size, std::uint8_t /*flags*/, void* user_data) {
    if (frame->hd.type != NGHTTP2_HEADERS)
      return 0;
    Stream* stream = of(user_data).find(frame->hd.stream_id);
    if (stream == nullptr)
      return 0;
    stream->header_bytes += name_size + value_size + kHeaderFieldOverhead;
    if (stream->header_bytes > sdk::kMaxRequestHeaderBytes)
      return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;  // resets this stream only
    const std::string_view key(reinterpret_cast<const char*>(name), name_size);
    const std::string_view text(reinterpret_cast<const char*>(value), value_size);
    if (key == ":method") {
      stream->request.method = text;
    } else if (key == ":path") {
      stream->request.target = text;
    }
    return 0;
  }

  static int onDataChunk(nghttp2_session* /*session*/, std::uint8_t /*flags*/,
                         std::int32_t stream_id, const std::uint8_t* data, std::size_t size,
                         void* user_data) {
    Stream* stream = of(user_data).find(stream_id);
    if (stream == nullptr || stream->body_too_large)
      return 0;
    if (stream->request.body.size() + size > sdk::kMaxRequestBodyBytes) {
      stream->body_too_large = true;
      stream->request.body.clear();
      return 0;
    }
    stream->request.body.append(reinterpret_cast<const char*>(data), size);
    return 0;
  }

  static int onFrame(nghttp2_session* /*session*/, const nghttp2_frame* frame, void* user_data) {
    if ((frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) ||
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0)
      return 0;
    Impl& impl = of(user_data);
    if (Stream* stream = impl.find(frame->hd.stream_id); stream != nullptr && !stream->handed_over)
      impl.completed.push_back(frame->hd.stream_id);
    return 0;
  }

  static int onStreamClose(nghttp2_session* /*session*/, std::int32_t stream_id,
                           std::uint32_t /*error_code*/, void* user_data) {
    Impl& impl = of(user_data);
    const auto found = impl.streams.find(stream_id);
    if (found == impl.streams.end())
      return 0;
    if (found->second.handed_over && !found->second.answered) {
      --impl.waiting;
      impl.gone.push_back(stream_id);
    }
    impl.completed.erase(std::remove(impl.completed.begin(), impl.completed.end(), stream_id),
                         impl.completed.end());
    impl.streams.erase(found);
    return 0;
  }

  static ssize_t readReplyBody(nghttp2_session* /*session*/, std::int32_t stream_id,
                               std::uint8_t* buffer, std::size_t size, std::uint32_t* data_flags,
                               nghttp2_data_source* /*source*/, void* user_data) {
    Stream* stream = of(user_data).find(stream_id);
    if (stream == nullptr)
      return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    const std::size_t copied = std::min(size, stream->reply_body.size() - stream->reply_sent);
    std::copy_n(stream->reply_body.data() + stream->reply_sent, copied, buffer);
    stream->reply_sent += copied;
    if (stream->reply_sent == stream->reply_body.size())
      *data_flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(copied);
  }
};

ServerSession::ServerSession(Handlers handlers, std::string server_name,
                             std::uint32_t max_concurrent_streams)
    : impl_(std::make_unique<Impl>()) {
  impl_->handlers = std::move(handlers);
  impl_->server_name = std::move(server_name);
  nghttp2_session_callbacks* callbacks = nullptr;
  if (nghttp2_session_callbacks_new(&callbacks) != 0)
    throw std::bad_alloc();
  nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, Impl::onBeginHeaders);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, Impl::onHeader);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, Impl::onDataChunk);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, Impl::onFrame);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, Impl::onStreamClose);
  const int created = nghttp2_session_server_new(&impl_->session, callbacks, impl_.get());
  nghttp2_session_callbacks_del(callbacks);
  if (created != 0)
    throw std::bad_alloc();
  const std::array<nghttp2_settings_entry, 2> settings = {{
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, max_concurrent_streams},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE,
       static_cast<std::uint32_t>(sdk::kMaxRequestHeaderBytes)},
  }};
  nghttp2_submit_settings(impl_->session, NGHTTP2_FLAG_NONE, settings.data(), settings.size());
}

ServerSession::~ServerSession() {
  nghttp2_session_del(impl_->session);
}

bool ServerSession::receive(std::string_view bytes) {
  const ssize_t taken = nghttp2_session_mem_recv(
      impl_->session, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  impl_->dispatch();
  if (taken >= 0)
    return true;
  // A bad preface, a flood, a broken frame: end the connection, telling the client why.
  nghttp2_session_terminate_session(impl_->session, NGHTTP2_PROTOCOL_ERROR);
  return false;
}

void ServerSession::takeOutput(std::string& out) {
  for (;;) {
    const std::uint8_t* data = nullptr;
    // The chunk is valid until the next call: copy it at once.
    const ssize_t size = nghttp2_session_mem_send(impl_->session, &data);
    if (size <= 0)
      break;
    out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size));
  }
  // A reply sent in full can close its stream inside mem_send; nothing waits on those, but a
  // stream reset by a flow-control or send failure can also end here.
  impl_->dispatch();
}

void ServerSession::respond(std::int32_t stream_id, const sdk::Reply& reply) {
  Stream* stream = impl_->find(stream_id);
  if (stream == nullptr || !stream->handed_over || stream->answered)
    return;
  impl_->respondTo(stream_id, *stream, reply);
}

void ServerSession::goAway() {
  if (impl_->went_away)
    return;
  impl_->went_away = true;
  nghttp2_submit_goaway(impl_->session, NGHTTP2_FLAG_NONE,
                        nghttp2_session_get_last_proc_stream_id(impl_->session), NGHTTP2_NO_ERROR,
                        nullptr, 0);
}

void ServerSession::endConnection() {
  for (auto& [stream_id, stream] : impl_->streams) {
    if (stream.handed_over && !stream.answered) {
      stream.answered = true;
      impl_->gone.push_back(stream_id);
    }
  }
  impl_->waiting = 0;
  impl_->completed.clear();
  impl_->dispatch();
}

bool ServerSession::finished() const {
  return nghttp2_session_want_read(impl_->session) == 0 &&
         nghttp2_session_want_write(impl_->session) == 0;
}

std::size_t ServerSession::waitingStreams() const noexcept {
  return impl_->waiting;
}

}  // namespace benchd::h2_session
