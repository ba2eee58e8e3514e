#include "stream_state.hpp"

#include <benchd/http/event_stream.hpp>

#include <stdexcept>

namespace benchd::http {

namespace {

void requireSingleLine(const std::string& value, const char* what) {
  if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
    throw std::invalid_argument(std::string("event ") + what +
                                " must not contain CR, LF or NUL: a field is one line");
  }
}

void appendField(std::string& out, std::string_view name, std::string_view value) {
  out += name;
  out += ':';
  if (!value.empty()) {
    // One space after the colon; the client strips exactly one, so leading spaces of the
    // value survive.
    out += ' ';
    out += value;
  }
  out += '\n';
}

}  // namespace

std::string encodeEvent(const Event& event) {
  requireSingleLine(event.id, "id");
  requireSingleLine(event.event, "name");
  std::string out;
  out.reserve(event.data.size() + event.id.size() + event.event.size() + 32);
  if (!event.id.empty())
    appendField(out, "id", event.id);
  if (!event.event.empty())
    appendField(out, "event", event.event);
  if (event.retry)
    appendField(out, "retry", std::to_string(event.retry->count()));
  // WHATWG: a line ends with CRLF, LF or CR; each data line is its own "data:" field.
  const std::string_view data = event.data;
  std::size_t start = 0;
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '\r' || data[i] == '\n') {
      appendField(out, "data", data.substr(start, i - start));
      if (data[i] == '\r' && i + 1 < data.size() && data[i + 1] == '\n')
        ++i;
      start = i + 1;
    }
  }
  appendField(out, "data", data.substr(start));
  out += '\n';
  return out;
}

const char* describe(StreamEnd end) noexcept {
  switch (end) {
    case StreamEnd::ClientLeft:
      return "client left";
    case StreamEnd::ClientTooSlow:
      return "client too slow";
    case StreamEnd::ClosedByApplication:
      return "closed by the application";
    case StreamEnd::ServerStopping:
      return "server stopping";
  }
  return "unknown";
}

bool EventSink::push(const Event& event) {
  if (!state_)
    return false;
  return state_->enqueue(encodeEvent(event));
}

bool EventSink::comment(const std::string& text) {
  if (!state_)
    return false;
  requireSingleLine(text, "comment");
  return state_->enqueue(": " + text + "\n\n");
}

void EventSink::close() {
  if (state_)
    state_->requestClose(StreamEnd::ClosedByApplication);
}

bool EventSink::isOpen() const {
  return state_ && state_->isOpen();
}

}  // namespace benchd::http
