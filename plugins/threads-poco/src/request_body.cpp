#include "request_body.hpp"

#include "checked_request.hpp"
#include "client_text.hpp"

#include <benchd/sdk/limits.hpp>

#include <Poco/Net/HTTPFixedLengthStream.h>
#include <Poco/Net/HTTPServerSession.h>
#include <Poco/String.h>

#include <cstdint>
#include <limits>
#include <string_view>
#include <variant>
#include <vector>

namespace benchd::threads_poco {

namespace {

/// Longest chunk-size line (size and extensions) and longest trailer section accepted. Beast
/// bounds both by its header limit; these are far above any real client's and keep a hostile
/// one from growing a line without end.
/// The contract's lower bounds (benchd/limits.h), which threads-poco also uses as its caps:
/// longer lines or trailer sections get 400 and end the connection, as CONTRACT.md allows.
constexpr std::size_t kMaxChunkLineBytes = sdk::kMinChunkLineBytes;
constexpr std::size_t kMaxTrailerBytes = sdk::kMaxRequestHeaderBytes;

std::string_view trimmed(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && blank(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && blank(text.back()))
    text.remove_suffix(1);
  return text;
}

/// The elements of a comma-separated field value, trimmed; empty elements are kept so the
/// caller can refuse them.
std::vector<std::string_view> listElements(std::string_view value) {
  std::vector<std::string_view> elements;
  for (;;) {
    const std::size_t comma = value.find(',');
    elements.push_back(trimmed(value.substr(0, comma)));
    if (comma == std::string_view::npos)
      return elements;
    value.remove_prefix(comma + 1);
  }
}

/// 1*DIGIT without sign, spaces or overflow; leading zeros are fine (RFC 9110 section 8.6).
std::optional<std::uint64_t> decimal(std::string_view text) {
  if (text.empty())
    return std::nullopt;
  std::uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10)
      return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

struct NoBody {};
struct FixedLength {
  std::uint64_t bytes = 0;
};
struct Chunked {};
using Framing = std::variant<NoBody, FixedLength, Chunked, sdk::Reply>;

/// Decides the framing from the header alone. Every field is looked at, not only the first
/// of a name, because a proxy in front may pick another one than we do.
Framing framingOf(const Poco::Net::HTTPServerRequest& request) {
  std::optional<std::uint64_t> length;
  bool has_transfer_encoding = false;
  bool chunked = false;
  for (const auto& [name, value] : request) {
    if (Poco::icompare(name, Poco::Net::HTTPMessage::CONTENT_LENGTH) == 0) {
      for (const std::string_view element : listElements(value)) {
        const auto parsed = decimal(element);
        if (!parsed)
          return sdk::malformedRequestReply("Content-Length " + quotedClientText(value) +
                                            " is not a decimal number");
        if (length && *length != *parsed)
          return sdk::malformedRequestReply("conflicting Content-Length values " +
                                            std::to_string(*length) + " and " +
                                            std::to_string(*parsed));
        length = parsed;
      }
    } else if (Poco::icompare(name, Poco::Net::HTTPMessage::TRANSFER_ENCODING) == 0) {
      // Like Beast: chunked counts only as the last coding of a field, and nothing may follow
      // a field that ended in it.
      if (chunked)
        return sdk::malformedRequestReply("Transfer-Encoding after chunked");
      has_transfer_encoding = true;
      const auto codings = listElements(value);
      for (std::size_t index = 0; index < codings.size(); ++index) {
        if (Poco::icompare(std::string(codings[index]), "chunked") == 0) {
          chunked = index + 1 == codings.size();
          break;
        }
      }
    }
  }
  if (length && has_transfer_encoding)
    return sdk::malformedRequestReply("both Content-Length and Transfer-Encoding");
  if (chunked)
    return Chunked{};
  if (!length || *length == 0)
    return NoBody{};
  if (*length > sdk::kMaxRequestBodyBytes)
    return sdk::bodyTooLargeReply();
  return FixedLength{*length};
}

/// Reads from the connection without ever taking a byte past what it is asked for: each read
/// is a fixed-length stream over the connection's session (BufferedServerSession), whose
/// buffer keeps what follows for the next request and serves small reads without a receive.
class SessionReader {
 public:
  explicit SessionReader(Poco::Net::HTTPServerSession& session) : session_(session) {}

  /// Appends exactly `bytes` bytes to `out`; false when the peer closed first.
  bool append(std::string& out, std::size_t bytes) {
    Poco::Net::HTTPFixedLengthInputStream in(
        session_, static_cast<Poco::Net::HTTPFixedLengthStreamBuf::ContentLength>(bytes));
    in.exceptions(std::ios::badbit);  // network errors propagate; only a close reads as EOF
    const std::size_t start = out.size();
    out.resize(start + bytes);
    in.read(out.data() + start, static_cast<std::streamsize>(bytes));
    out.resize(start + static_cast<std::size_t>(in.gcount()));
    return out.size() == start + bytes;
  }

  /// One line ending in CRLF, without the CRLF; nothing for a bare LF, a line longer than
  /// `max_bytes` or a close before the line end.
  std::optional<std::string> line(std::size_t max_bytes) {
    std::string text;
    while (text.size() <= max_bytes + 1) {
      if (!append(text, 1))
        return std::nullopt;
      if (text.back() == '\n') {
        if (text.size() < 2 || text[text.size() - 2] != '\r')
          return std::nullopt;
        text.resize(text.size() - 2);
        return text;
      }
    }
    return std::nullopt;
  }

 private:
  Poco::Net::HTTPServerSession& session_;
};

/// The hex size of a chunk-size line (RFC 9112 section 7.1), or nothing when the line is not
/// 1*HEXDIG, optionally followed by extensions that start, after blanks, with ';'.
std::optional<std::uint64_t> chunkSize(std::string_view line) {
  std::uint64_t size = 0;
  std::size_t digits = 0;
  for (; digits < line.size(); ++digits) {
    const char c = line[digits];
    unsigned value = 0;
    if (c >= '0' && c <= '9') {
      value = static_cast<unsigned>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      value = static_cast<unsigned>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      value = static_cast<unsigned>(c - 'A' + 10);
    } else {
      break;
    }
    if (size > (std::numeric_limits<std::uint64_t>::max() >> 4))
      return std::nullopt;
    size = (size << 4) | value;
  }
  if (digits == 0)
    return std::nullopt;
  const std::string_view rest = line.substr(digits);
  if (!rest.empty() && (trimmed(rest).empty() || trimmed(rest).front() != ';'))
    return std::nullopt;
  return size;
}

std::optional<sdk::Reply> readChunked(SessionReader& reader, std::string& body) {
  const sdk::Reply ended_early = sdk::malformedRequestReply("the chunked body ended early");
  for (;;) {
    const auto line = reader.line(kMaxChunkLineBytes);
    if (!line)
      return sdk::malformedRequestReply("a chunk-size line must end in CRLF within " +
                                        std::to_string(kMaxChunkLineBytes) + " bytes");
    const auto size = chunkSize(*line);
    if (!size)
      return sdk::malformedRequestReply("invalid chunk size " + quotedClientText(*line));
    if (*size == 0)
      break;
    if (*size > sdk::kMaxRequestBodyBytes - body.size())
      return sdk::bodyTooLargeReply();
    if (!reader.append(body, static_cast<std::size_t>(*size)))
      return ended_early;
    std::string line_end;
    if (!reader.append(line_end, 2))
      return ended_early;
    if (line_end != "\r\n")
      return sdk::malformedRequestReply("chunk data must be followed by CRLF");
  }
  // Trailer fields are read (so the next request starts where it should) and ignored.
  std::size_t trailer_bytes = 0;
  for (;;) {
    const auto field =
        reader.line(trailer_bytes < kMaxTrailerBytes ? kMaxTrailerBytes - trailer_bytes : 0);
    if (!field)
      return sdk::malformedRequestReply("the trailer section must end in CRLF within " +
                                        std::to_string(kMaxTrailerBytes) + " bytes");
    if (field->empty())
      return std::nullopt;
    if (field->find(':') == std::string::npos)
      return sdk::malformedRequestReply("invalid trailer field " + quotedClientText(*field));
    trailer_bytes += field->size() + 2;
  }
}

}  // namespace

std::optional<sdk::Reply> readRequestBody(Poco::Net::HTTPServerRequest& request,
                                          Poco::Net::HTTPServerResponse& response,
                                          std::string& body) {
  const Framing framing = framingOf(request);
  if (const auto* refusal = std::get_if<sdk::Reply>(&framing))
    return *refusal;
  if (std::holds_alternative<NoBody>(framing))
    return std::nullopt;
  if (request.getExpectContinue())
    response.sendContinue();
  // Connection hands every handler a CheckedRequest.
  SessionReader reader(dynamic_cast<CheckedRequest&>(request).session());
  if (const auto* fixed = std::get_if<FixedLength>(&framing)) {
    if (!reader.append(body, static_cast<std::size_t>(fixed->bytes)))
      return sdk::malformedRequestReply("the body ended before its Content-Length");
    return std::nullopt;
  }
  return readChunked(reader, body);
}

}  // namespace benchd::threads_poco
