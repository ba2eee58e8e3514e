#include "hostile_requests.hpp"

#include "loopback_socket.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <iterator>
#include <random>
#include <set>
#include <sstream>
#include <thread>

namespace benchd::testing {
namespace {

// ---- names -----------------------------------------------------------------------------------

struct FamilyEntry {
  HostileFamily family;
  std::string_view name;
};

constexpr FamilyEntry kFamilies[] = {
    {HostileFamily::kRandomBytes, "random-bytes"},
    {HostileFamily::kBadRequestLine, "bad-request-line"},
    {HostileFamily::kUnknownMethod, "unknown-method"},
    {HostileFamily::kOddPath, "odd-path"},
    {HostileFamily::kHugeTarget, "huge-target"},
    {HostileFamily::kBadQueryValue, "bad-query-value"},
    {HostileFamily::kMalformedId, "malformed-id"},
    {HostileFamily::kUnknownId, "unknown-id"},
    {HostileFamily::kHeaderOverLimit, "header-over-limit"},
    {HostileFamily::kManyHeaders, "many-headers"},
    {HostileFamily::kBadHeaderSyntax, "bad-header-syntax"},
    {HostileFamily::kBareLf, "bare-lf"},
    {HostileFamily::kNulBytes, "nul-bytes"},
    {HostileFamily::kBadContentLength, "bad-content-length"},
    {HostileFamily::kUnrepresentableContentLength, "unrepresentable-content-length"},
    {HostileFamily::kBadChunking, "bad-chunking"},
    {HostileFamily::kBodyOverLimit, "body-over-limit"},
    {HostileFamily::kChunkedBodyOverLimit, "chunked-body-over-limit"},
    {HostileFamily::kBadJsonBody, "bad-json-body"},
    {HostileFamily::kWrongContentType, "wrong-content-type"},
    {HostileFamily::kBadCredentials, "bad-credentials"},
    {HostileFamily::kForeignHost, "foreign-host"},
    {HostileFamily::kBadDocumentName, "bad-document-name"},
    {HostileFamily::kBadDocument, "bad-document"},
    {HostileFamily::kDocumentWrongContentType, "document-wrong-content-type"},
    {HostileFamily::kProtectedDocumentRemoval, "protected-document-removal"},
    {HostileFamily::kPipelinedValid, "pipelined-valid"},
    {HostileFamily::kPipelinedJunk, "pipelined-junk"},
    {HostileFamily::kTruncated, "truncated"},
    {HostileFamily::kDamagedRequest, "damaged-request"},
    {HostileFamily::kValid, "valid"},
};
constexpr bool everyFamilyInDeclarationOrder() {
  for (std::size_t index = 0; index < std::size(kFamilies); ++index) {
    if (static_cast<std::size_t>(kFamilies[index].family) != index) {
      return false;
    }
  }
  return std::size(kFamilies) == static_cast<std::size_t>(HostileFamily::kValid) + 1;
}
static_assert(everyFamilyInDeclarationOrder(), "kFamilies lists every family once, in order");

// ---- random choices --------------------------------------------------------------------------

/// Random choices from a seed; the same seed makes the same choices (on one standard library).
class Random {
 public:
  Random(std::uint64_t seed, std::uint64_t index) {
    std::seed_seq sequence{
        static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32U),
        static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32U)};
    engine_.seed(sequence);
  }

  std::size_t below(std::size_t bound) {
    return std::uniform_int_distribution<std::size_t>(0, bound - 1)(engine_);
  }
  std::size_t between(std::size_t low, std::size_t high) { return low + below(high - low + 1); }
  bool chance(unsigned percent) { return below(100) < percent; }
  template <typename T>
  T pick(const std::vector<T>& items) {
    return items[below(items.size())];
  }
  std::string bytes(std::size_t count) {
    std::string out(count, '\0');
    for (char& byte : out) {
      byte = static_cast<char>(below(256));
    }
    return out;
  }
  /// Printable ASCII without spaces.
  std::string word(std::size_t count) {
    std::string out(count, '\0');
    for (char& byte : out) {
      byte = static_cast<char>(between(0x21, 0x7e));
    }
    return out;
  }
  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
};

// ---- requests --------------------------------------------------------------------------------

std::string request(const std::string& method, const std::string& target,
                    const std::vector<std::string>& header_lines, const std::string& body = {}) {
  std::string out = method + " " + target + " HTTP/1.1\r\n";
  for (const std::string& line : header_lines) {
    out += line + "\r\n";
  }
  return out + "\r\n" + body;
}

std::string chunked(const std::string& body, std::size_t chunk_size) {
  std::ostringstream out;
  for (std::size_t at = 0; at < body.size(); at += chunk_size) {
    const std::string part = body.substr(at, chunk_size);
    out << std::hex << part.size() << "\r\n" << part << "\r\n";
  }
  out << "0\r\n\r\n";
  return out.str();
}

std::string lowerCase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](char character) { return static_cast<char>(std::tolower(character)); });
  return text;
}

/// Makes one request of a family for one target. Every family's method promises what its
/// requests are (HostileFamily); none is a request that changes the target's state.
class RequestMaker {
 public:
  RequestMaker(const HostileTarget& target, Random& random)
      : target_(target),
        random_(random),
        host_("Host: " + target.host),
        auth_(target.token.empty() ? std::string() : "Authorization: Bearer " + target.token) {}

  HostileRequest make(HostileFamily family) {
    HostileRequest made = build(family);
    made.family = family;
    return made;
  }

 private:
  HostileRequest build(HostileFamily family) {
    switch (family) {
      case HostileFamily::kRandomBytes:
        return randomBytes();
      case HostileFamily::kBadRequestLine:
        return badRequestLine();
      case HostileFamily::kUnknownMethod:
        return unknownMethod();
      case HostileFamily::kOddPath:
        return oddPath();
      case HostileFamily::kHugeTarget:
        return hugeTarget();
      case HostileFamily::kBadQueryValue:
        return badQueryValue();
      case HostileFamily::kMalformedId:
        return malformedId();
      case HostileFamily::kUnknownId:
        return plain(request("GET", target_.collection + "/424242", headers()));
      case HostileFamily::kHeaderOverLimit:
        return headerOverLimit();
      case HostileFamily::kManyHeaders:
        return manyHeaders();
      case HostileFamily::kBadHeaderSyntax:
        return badHeaderSyntax();
      case HostileFamily::kBareLf:
        return bareLf();
      case HostileFamily::kNulBytes:
        return nulBytes();
      case HostileFamily::kBadContentLength:
        return badContentLength();
      case HostileFamily::kUnrepresentableContentLength:
        return plain(bodyHeadOnly("Content-Length: " +
                                  random_.pick(std::vector<std::string>{
                                      "99999999999999999999999999", "18446744073709551616"})));
      case HostileFamily::kBadChunking:
        return badChunking();
      case HostileFamily::kBodyOverLimit:
        return bodyOverLimit();
      case HostileFamily::kChunkedBodyOverLimit:
        return chunkedBodyOverLimit();
      case HostileFamily::kBadJsonBody:
        return badJsonBody();
      case HostileFamily::kWrongContentType:
        return wrongContentType();
      case HostileFamily::kBadCredentials:
        return badCredentials();
      case HostileFamily::kForeignHost:
        return foreignHost();
      case HostileFamily::kBadDocumentName:
        return badDocumentName();
      case HostileFamily::kBadDocument:
        return badDocument();
      case HostileFamily::kDocumentWrongContentType:
        return documentWrongContentType();
      case HostileFamily::kProtectedDocumentRemoval:
        return plain(request(
            "DELETE", target_.documents->collection + "/" + target_.documents->protected_name,
            headers()));
      case HostileFamily::kPipelinedValid:
        return pipelinedValid();
      case HostileFamily::kPipelinedJunk:
        return pipelinedJunk();
      case HostileFamily::kTruncated:
        return truncated();
      case HostileFamily::kDamagedRequest:
        return damagedRequest();
      case HostileFamily::kValid:
        return valid();
    }
    return {};
  }

  static HostileRequest plain(std::string bytes, bool may_succeed = false) {
    HostileRequest made;
    made.bytes = std::move(bytes);
    made.may_succeed = may_succeed;
    return made;
  }

  /// The Host line and, when the target has a token, the Authorization line.
  [[nodiscard]] std::vector<std::string> headers() const {
    std::vector<std::string> lines = {host_};
    if (!auth_.empty()) {
      lines.push_back(auth_);
    }
    return lines;
  }

  /// Every path the corpus knows of the target.
  std::vector<std::string> paths() const {
    std::vector<std::string> all = {target_.public_path};
    all.insert(all.end(), target_.answering_paths.begin(), target_.answering_paths.end());
    all.insert(all.end(), target_.other_paths.begin(), target_.other_paths.end());
    if (!target_.collection.empty()) {
      all.push_back(target_.collection + "/1");
    }
    return all;
  }

  /// Where bodies go: the body resource, or POST public_path when the target has none.
  [[nodiscard]] std::string bodyMethod() const {
    return target_.body ? target_.body->method : "POST";
  }
  [[nodiscard]] std::string bodyTarget() const {
    return target_.body ? target_.body->target : target_.public_path;
  }
  [[nodiscard]] std::vector<std::string> bodyHeaders() const {
    std::vector<std::string> lines = headers();
    if (target_.body && !target_.body->content_type.empty()) {
      lines.push_back("Content-Type: " + target_.body->content_type);
    }
    return lines;
  }
  /// The head of a body request with `framing_line` (and no body).
  std::string bodyHeadOnly(const std::string& framing_line) const {
    std::vector<std::string> lines = bodyHeaders();
    lines.push_back(framing_line);
    return request(bodyMethod(), bodyTarget(), lines);
  }
  std::string withBody(const std::string& body, bool as_chunks) const {
    std::vector<std::string> lines = bodyHeaders();
    if (as_chunks) {
      lines.emplace_back("Transfer-Encoding: chunked");
      return request(bodyMethod(), bodyTarget(), lines, chunked(body, 100));
    }
    lines.push_back("Content-Length: " + std::to_string(body.size()));
    return request(bodyMethod(), bodyTarget(), lines, body);
  }
  /// A body the body resource refuses whatever is done to a few of its bytes: for JSON, the
  /// wrong container; the resource's valid body when it takes any body.
  [[nodiscard]] std::string harmlessBody() const {
    if (!target_.body) {
      return "hello";
    }
    if (target_.body->json) {
      return target_.body->json->array_of_objects ? "{}" : "[]";
    }
    return target_.body->valid_body;
  }

  // ---- families ------------------------------------------------------------------------------

  HostileRequest randomBytes() {
    std::string bytes;
    switch (random_.below(3)) {
      case 0:
        bytes = random_.bytes(random_.between(1, 2000));
        break;
      case 1: {  // text-like: words, spaces and line breaks
        const std::size_t words = random_.between(1, 60);
        for (std::size_t index = 0; index < words; ++index) {
          bytes +=
              random_.word(random_.between(1, 20)) +
              random_.pick(std::vector<std::string>{" ", "\r\n", "\n", ": ", "\r\n\r\n", "\t"});
        }
        break;
      }
      default:  // one garbage line, then the end of a head
        bytes = (random_.chance(50) ? random_.word(random_.between(1, 200))
                                    : random_.bytes(random_.between(1, 200))) +
                "\r\n\r\n";
        break;
    }
    return plain(std::move(bytes));
  }

  HostileRequest badRequestLine() {
    const std::string path = random_.pick(paths());
    std::string line;
    bool may_succeed = false;
    switch (random_.below(5)) {
      case 0:
        line = random_.word(random_.between(1, 100));
        break;
      case 1:
        line = random_.word(random_.between(1, 10)) + " " + random_.word(random_.between(1, 40)) +
               " " + random_.word(random_.between(1, 10));
        break;
      case 2:
        line = "GET " + random_.word(random_.between(1, 40)) + " HTTP/" + random_.word(3);
        break;
      case 3:  // broken versions and separators
        line = random_.pick(std::vector<std::string>{
            "GET " + path + " HTTP/1.1 extra", "GET " + path + " HTTP/1.1x",
            "GET " + path + " HTTX/1.1", "GET " + path + " HTTP/1.", "GET " + path + " HTTP/11",
            "GET " + path + " http/1.1", "GET " + path + " HTTP/9.9", "GET " + path + " HTTP/1.1\r",
            "GET " + path + " HTTP/1.1 ", "GET " + path + " HTTP/-1.1",
            "GET " + path + " HTTP/1.1\x01", "GET " + path + " ",
            "GET " + path + " HTTP/1.1 HTTP/1.1", "GET " + path + " HTTP/1.10", path + " HTTP/1.1",
            "GET " + path.substr(1) + " HTTP/1.1", "G\x01T " + path + " HTTP/1.1"});
        break;
      default:  // versions and spacing a lenient server may read as a request it serves
        may_succeed = true;
        line = random_.pick(std::vector<std::string>{
            "GET " + path + " HTTP/1.0", "GET " + path + " HTTP/1.2", "GET " + path + " HTTP/2.0",
            "GET " + path + " HTTP/0.9", "GET " + path, " GET " + path + " HTTP/1.1",
            "GET  " + path + " HTTP/1.1"});
        break;
    }
    std::string bytes = line + "\r\n";
    for (const std::string& header : headers()) {
      bytes += header + "\r\n";
    }
    return plain(bytes + "\r\n", may_succeed);
  }

  HostileRequest unknownMethod() {
    static const std::vector<std::string> kMethods = {
        "GET",      "HEAD",     "POST",    "PUT",
        "DELETE",   "PATCH",    "OPTIONS", "TRACE",
        "CONNECT",  "PROPFIND", "BREW",    "FOO",
        "get",      "Get",      "G\tET",   "",
        "M-SEARCH", "GET\x7f",  "P0ST",    "GETGETGETGETGETGETGETGETGETGETGETGETGETGETGETGET"};
    std::string method;
    switch (random_.below(3)) {
      case 0:
        method = random_.pick(kMethods);
        break;
      case 1:
        method.resize(random_.between(1, 30));
        for (char& letter : method) {
          letter = static_cast<char>('A' + random_.below(26));
        }
        break;
      default:
        method = random_.word(random_.between(1, 20));
        break;
    }
    std::vector<std::string> lines = headers();
    if (random_.chance(30)) {
      lines.emplace_back("Content-Length: 0");
    }
    HostileRequest made = plain(request(method, random_.pick(paths()), lines),
                                method == "GET" || method == "HEAD" || method == "OPTIONS");
    made.first_is_head = method == "HEAD";
    return made;
  }

  HostileRequest oddPath() {
    static const std::vector<std::string> kSegments = {
        "..",         "%2e%2e",     "%2E%2e", ".",        "%2f",
        "%2F",        "",           "%00",    "%",        "%zz",
        "%c0%ae",     "etc",        "passwd", "~",        "*",
        "%20",        "1",          "-1",     "0",        "99999999999999999999999",
        "1e3",        "0x1",        "%31",    "\xc3\xa9", "\xff\xfe",
        "..%2f..%2f", "%252e%252e", "nope"};
    const std::string known = random_.pick(paths());
    std::string target;
    switch (random_.below(5)) {
      case 0: {  // segments of the target's own paths and hostile ones, joined oddly
        std::vector<std::string> segments = kSegments;
        std::istringstream parts(known);
        for (std::string part; std::getline(parts, part, '/');) {
          segments.push_back(part.substr(0, part.find('?')));
        }
        const std::size_t count = random_.between(1, 8);
        for (std::size_t index = 0; index < count; ++index) {
          target += random_.pick(std::vector<std::string>{"/", "//", "/./", "\\"}) +
                    random_.pick(segments);
        }
        break;
      }
      case 1:  // traversal into and out of a known path
        target = random_.pick(std::vector<std::string>{
            known + "/%2e%2e" + known, known + "/../" + known, "/%2e%2e/%2e%2e/etc/passwd",
            known + "/..%2f..%2f..%2fetc%2fpasswd", "/..", "/%2e%2e/",
            known + "/../../../../etc/passwd", "/" + known, known + "/", known + "/%2e",
            "/./" + known.substr(1), known + "%2f..%2f2", "/../" + known.substr(1)});
        break;
      case 2: {  // control characters and raw bytes inside the target
        target = known;
        const std::size_t count = random_.between(1, 4);
        for (std::size_t index = 0; index < count; ++index) {
          const std::string bad = random_.pick(std::vector<std::string>{
              std::string(1, '\0'), "\x01", "\x1f", "\x7f", " ", "\t", "\r", "\n", "\x80", "\xff",
              "\"", "<", ">", "{", "}", "|", "^", "`"});
          target.insert(random_.below(target.size() + 1), bad);
        }
        break;
      }
      case 3: {  // letter case, encodings and separators a path may be normalised by
        std::string upper = known;
        std::transform(upper.begin(), upper.end(), upper.begin(),
                       [](char character) { return static_cast<char>(std::toupper(character)); });
        std::string encoded_slashes = known;
        for (std::size_t at = encoded_slashes.find('/', 1); at != std::string::npos;
             at = encoded_slashes.find('/', at + 3)) {
          encoded_slashes.replace(at, 1, "%2f");
        }
        target = random_.pick(std::vector<std::string>{
            upper, encoded_slashes, known + "#fragment", known + ";param", known + "?",
            known + "?" + random_.word(random_.between(1, 200)), known + "?a=%zz&&&==", "?", "/?/",
            "/%", known + "%20", known + "+"});
        break;
      }
      default:  // not origin form
        target = random_.pick(
            std::vector<std::string>{"http://127.0.0.1:" + std::to_string(target_.port) + known,
                                     "http://evil.example" + known, "*", "", known.substr(1),
                                     "//" + known.substr(1), "http://" + target_.host + known});
        break;
    }
    // A server may normalise an odd path into one it serves.
    return plain(request(random_.chance(90) ? "GET" : "DELETE", target, headers()), true);
  }

  HostileRequest hugeTarget() {
    const std::size_t length =
        random_.between(target_.max_head_bytes / 8, 4 * target_.max_head_bytes);
    std::string target;
    switch (random_.below(4)) {
      case 0:
        target = (target_.collection.empty() ? target_.public_path : target_.collection) + "/" +
                 std::string(length, 'a');
        break;
      case 1:
        target = (target_.collection.empty() ? target_.public_path : target_.collection) + "/" +
                 std::string(length, '9');
        break;
      case 2:
        for (std::size_t index = 0; index < length / 2; ++index) {
          target += "/a";
        }
        break;
      default:  // a huge query value
        if (target_.query) {
          target = target_.query->path + "?";
          for (std::size_t index = 0; index < target_.query->parameters.size(); ++index) {
            const auto& [name, value] = target_.query->parameters[index];
            target += (index == 0 ? "" : "&") + name + "=" +
                      (index == 0 ? std::string(length, 'x') : value);
          }
        } else {
          target = target_.public_path + "?x=" + std::string(length, 'x');
        }
        break;
    }
    // A long but well-formed target within the head limit is served.
    return plain(request("GET", target, headers()), true);
  }

  HostileRequest badQueryValue() {
    static const std::vector<std::string> kValues = {"-1",
                                                     "3600001",
                                                     "99999999999999999999",
                                                     "1e3",
                                                     "0x10",
                                                     "+5",
                                                     "",
                                                     "%201",
                                                     "1%20",
                                                     "007",
                                                     "18446744073709551616",
                                                     "NaN",
                                                     "%zz",
                                                     "%",
                                                     "%4",
                                                     "Al%",
                                                     "%00",
                                                     "%C3%28",
                                                     "%ED%A0%80",
                                                     "%FF%FE",
                                                     "1.5",
                                                     "abc",
                                                     "1,2",
                                                     "%31"};
    const QueryResource& query = *target_.query;
    const std::size_t hostile = random_.below(query.parameters.size());
    const std::string value = random_.pick(kValues);
    std::string target = query.path + "?";
    for (std::size_t index = 0; index < query.parameters.size(); ++index) {
      const auto& [name, valid] = query.parameters[index];
      target += (index == 0 ? "" : "&") + name + "=" + (index == hostile ? value : valid);
    }
    if (random_.chance(20)) {  // the parameter twice, the hostile value second
      target += "&" + query.parameters[hostile].first + "=" + value;
    }
    // Some values are numbers a lenient parser takes ("007", "+5", "%31").
    return plain(request("GET", target, headers()), true);
  }

  HostileRequest malformedId() {
    const std::string id = random_.pick(
        std::vector<std::string>{"-1", "abc", "99999999999999999999999", "0x1", "1.5", "%31", "",
                                 "1e3", "+1", "%20", " 1", "0", "-0", "1%00"});
    const std::string method = random_.pick(std::vector<std::string>{"GET", "DELETE"});
    // "%31" decodes to an id; "" is the collection with a slash, which a server may normalise.
    return plain(request(method, target_.collection + "/" + id, headers()),
                 id == "%31" || id.empty());
  }

  HostileRequest headerOverLimit() {
    const std::size_t size =
        random_.between(target_.max_head_bytes + 1, 4 * target_.max_head_bytes);
    std::vector<std::string> lines = headers();
    lines.push_back("X-Big: " + std::string(size, 'x'));
    return plain(request("GET", target_.public_path, lines));
  }

  HostileRequest manyHeaders() {
    const std::size_t count = random_.chance(70)
                                  ? random_.between(50, 400)
                                  : random_.pick(std::vector<std::size_t>{1000, 5000});
    std::vector<std::string> lines = headers();
    for (std::size_t index = 0; index < count; ++index) {
      lines.push_back("X-H" + std::to_string(index) + ": " + random_.word(random_.between(1, 10)));
    }
    // Within the head limit they are served.
    return plain(request("GET", target_.public_path, lines), true);
  }

  HostileRequest badHeaderSyntax() {
    std::vector<std::string> lines = headers();
    switch (random_.below(3)) {
      case 0:
        lines.push_back(random_.pick(std::vector<std::string>{
            "NoColon", "Bad Name: v", "X-A : v", " folded: v", ": empty-name", "X-A: v\x01w",
            "X-\x80: v", std::string("X-Nul: a") + '\0' + "b", "X-A:\x7f"}));
        break;
      case 1:  // a folded continuation line
        lines.emplace_back("X-Fold: a");
        lines.push_back(random_.pick(std::vector<std::string>{" folded", "\tfolded", " "}));
        break;
      default:  // a random name and value
        lines.push_back(random_.word(random_.between(1, 30)) + ": " +
                        random_.bytes(random_.between(0, 100)));
        break;
    }
    // A lenient server may ignore the field it cannot read.
    return plain(request("GET", target_.public_path, lines), true);
  }

  HostileRequest bareLf() {
    std::vector<std::string> lines = {"GET " + target_.public_path + " HTTP/1.1"};
    const std::vector<std::string> rest = headers();
    lines.insert(lines.end(), rest.begin(), rest.end());
    lines.emplace_back();
    const std::size_t style = random_.below(3);
    std::string bytes;
    for (std::size_t index = 0; index < lines.size(); ++index) {
      const bool lf_only =
          style == 0 || (style == 1 && index == 0) || (style == 2 && index + 1 == lines.size());
      bytes += lines[index] + (lf_only ? "\n" : "\r\n");
    }
    // RFC 9112 lets a server read LF alone as a line end.
    return plain(std::move(bytes), true);
  }

  HostileRequest nulBytes() {
    const std::string public_path = target_.public_path;
    const std::size_t at = 1 + random_.below(public_path.size());
    switch (random_.below(3)) {
      case 0: {
        std::string path = public_path;
        path.insert(at, 1, '\0');
        return plain(request("GET", path, headers()));
      }
      case 1: {
        std::vector<std::string> lines = headers();
        lines[0] += std::string(1, '\0') + "x";
        return plain(request("GET", public_path, lines));
      }
      default:
        return plain(std::string(random_.between(1, 16), '\0') + "\r\n\r\n");
    }
  }

  HostileRequest badContentLength() {
    const std::string framing = random_.pick(std::vector<std::string>{
        "Content-Length: 2\r\nContent-Length: 3", "Content-Length: -1", "Content-Length: abc",
        "Content-Length: 5\r\nTransfer-Encoding: chunked", "Content-Length:", "Content-Length: 1 2",
        "Content-Length: +3", "Content-Length: 0x10", "Content-Length: 1, 2"});
    if (random_.chance(50)) {  // on a GET a lenient server may ignore
      std::vector<std::string> lines = headers();
      lines.push_back(framing);
      return plain(request("GET", target_.public_path, lines, "ab"), true);
    }
    std::vector<std::string> lines = bodyHeaders();
    lines.push_back(framing);
    return plain(request(bodyMethod(), bodyTarget(), lines, "ab"));
  }

  HostileRequest badChunking() {
    const std::string body = random_.pick(std::vector<std::string>{
        "zz\r\nab\r\n0\r\n\r\n", "2\r\nabc\r\n0\r\n\r\n", "-1\r\n\r\n", "2\nab\n0\n\n",
        "2 \r\nab\r\n0\r\n\r\n", "ffffffffffffffffffff\r\n", "2\r\nab", "0x2\r\nab\r\n0\r\n\r\n",
        "\r\n", "2;\r\nab\r\n0\r\n\r\n", "2\r\nab\r\n0\r\nX-Trailer\r\n\r\n"});
    std::vector<std::string> lines = bodyHeaders();
    lines.push_back(random_.pick(
        std::vector<std::string>{"Transfer-Encoding: chunked", "Transfer-Encoding: chunked, gzip",
                                 "Transfer-Encoding: gzip", "Transfer-Encoding: identity"}));
    return plain(request(bodyMethod(), bodyTarget(), lines, body));
  }

  HostileRequest bodyOverLimit() {
    const std::size_t limit = target_.max_body_bytes;
    const std::size_t length = random_.chance(50) ? random_.between(limit + 1, 2 * limit)
                                                  : random_.between(limit + 1, 1'000'000'000);
    return plain(bodyHeadOnly("Content-Length: " + std::to_string(length)));
  }

  HostileRequest chunkedBodyOverLimit() {
    const std::size_t limit = target_.max_body_bytes;
    const std::size_t total = random_.between(limit + 1, 3 * limit);
    std::string chunks;
    for (std::size_t sent = 0; sent < total; sent += 1000) {
      chunks += "3e8\r\n" + std::string(1000, '[') + "\r\n";
    }
    std::vector<std::string> lines = bodyHeaders();
    lines.emplace_back("Transfer-Encoding: chunked");
    return plain(request(bodyMethod(), bodyTarget(), lines, chunks + "0\r\n\r\n"));
  }

  /// A body the JSON resource refuses: at least one defect, the rest possibly valid.
  std::string invalidJson() {
    const JsonShape& shape = *target_.body->json;
    const std::string valid = shape.validDocument();
    const auto wrap = [&shape](const std::string& object) {
      return shape.array_of_objects ? "[" + object + "]" : object;
    };
    const auto member = [](const std::string& name, const std::string& value) {
      return "\"" + name + "\":" + value;
    };
    switch (random_.below(9)) {
      case 0:  // cut short: a proper prefix of a document is never a whole one
        return valid.substr(0, random_.below(valid.size()));
      case 1:  // followed by more
        return valid +
               random_.pick(std::vector<std::string>{"x", "{}", ",", "]", "\"", "1", "null"});
      case 2:  // not JSON at all
        return random_.pick(std::vector<std::string>{
            "", " ", "{oops", "{'a':1}", "{\"a\":}", "\xef\xbb\xbf" + harmlessBody(), "{\"a\" 1}",
            "nul", "{,}", "[1,]", "{\"a\":1,}", "\"\\udc00\"", "[\"\\ud800\"]",
            random_.bytes(random_.between(1, 300))});
      case 3:  // valid JSON, the wrong kind of value at the top
        return random_.pick(std::vector<std::string>{
            "null", "1", "\"text\"", "true", shape.array_of_objects ? "{}" : "[]",
            "[" + valid + "]",
            shape.array_of_objects ? valid.substr(1, valid.size() - 2) : "[[]]"});
      case 4: {  // nested deeper than anything sane in the first member, within the body limit
        // At most kMaxNesting levels: far past any parser's sane depth, yet small enough that a
        // sanitizer build parses it within the answer timeout (a body-limit-sized one of a
        // million levels took ASan builds longer, 32 at a time).
        constexpr std::size_t kMaxNesting = 10'000;
        const std::string open = random_.chance(50) ? "[" : "{\"a\":";
        const std::size_t room = target_.max_body_bytes > 200 ? target_.max_body_bytes - 100 : 100;
        const std::size_t depth = random_.between(
            100, std::clamp<std::size_t>(room / (open.size() + 1), 100, kMaxNesting));
        std::string nested;
        nested.reserve(depth * (open.size() + 1) + 4);
        for (std::size_t index = 0; index < depth; ++index) {
          nested += open;
        }
        if (random_.chance(50)) {  // closed properly
          nested += "1" + std::string(depth, open == "[" ? ']' : '}');
          return wrap("{" + member(shape.members.front().name, nested) + "}");
        }
        return (shape.array_of_objects ? "[{" : "{") + member(shape.members.front().name, nested);
      }
      case 5: {  // a required member missing, the others valid
        std::vector<std::string> members;
        bool dropped = false;
        for (const JsonMember& each : shape.members) {
          if (each.required) {
            dropped = true;
          } else if (random_.chance(60)) {
            members.push_back(member(each.name, each.valid_value));
          }
        }
        if (dropped) {
          std::string object = "{";
          for (const std::string& each : members) {
            object += (object.size() > 1 ? "," : "") + each;
          }
          return wrap(object + "}");
        }
        [[fallthrough]];
      }
      case 6:  // an unknown member among valid ones
        if (shape.refuses_unknown_members) {
          const JsonMember& known = random_.pick(shape.members);
          std::string name = random_.pick(
              std::vector<std::string>{lowerCase(known.name), known.name + " ", "_" + known.name,
                                       "", "__proto__", "constructor", "\\u0000", "x"});
          if (name == known.name) {
            name += "_";
          }
          return wrap("{" + member(known.name, known.valid_value) + "," + member(name, "1") + "}");
        }
        [[fallthrough]];
      default: {  // one to three refused values, the other members valid, in any order
        // No valid member shares a name with a refused one: with duplicate names a server may
        // take the last, which could be the valid one.
        std::vector<std::string> members;
        std::set<std::string> refused_names;
        const std::size_t refused = random_.between(1, 3);
        for (std::size_t index = 0; index < refused; ++index) {
          const JsonMember& wrong = random_.pick(shape.members);
          if (wrong.refused_values.empty() || refused_names.count(wrong.name) != 0) {
            continue;
          }
          refused_names.insert(wrong.name);
          members.push_back(member(wrong.name, random_.pick(wrong.refused_values)));
        }
        if (members.empty()) {  // no member had refused values: refuse the document itself
          return valid.substr(0, valid.size() - 1);
        }
        for (const JsonMember& each : shape.members) {
          if (refused_names.count(each.name) == 0) {
            members.push_back(member(each.name, each.valid_value));
          }
        }
        std::shuffle(members.begin(), members.end(), random_.engine());
        std::string object = "{";
        for (const std::string& each : members) {
          object += (object.size() > 1 ? "," : "") + each;
        }
        return wrap(object + "}");
      }
    }
  }

  HostileRequest badJsonBody() {
    const std::string body = invalidJson().substr(0, target_.max_body_bytes);
    return plain(withBody(body, random_.chance(20)));
  }

  HostileRequest wrongContentType() {
    // The resource's valid body: only its type is wrong.
    const std::string body = target_.body->validBody();
    std::vector<std::string> lines = headers();
    lines.push_back("Content-Length: " + std::to_string(body.size()));
    const std::string type = random_.pick(std::vector<std::string>{
        "text/plain", "application/xml", "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x", "application/jsonp", "json", "",
        "application/json-patch+json", "text/json", "application/javascript", "*/*",
        "application/ json", "text/csv", "-"});
    if (type != "-") {  // "-": no Content-Type at all
      lines.push_back("Content-Type: " + type);
    }
    return plain(request(target_.body->method, target_.body->target, lines, body));
  }

  HostileRequest badCredentials() {
    const std::string& token = target_.token;
    std::string upper = token;
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](char character) { return static_cast<char>(std::toupper(character)); });
    const std::string authorization = random_.pick(std::vector<std::string>{
        "-", "Authorization: Bearer", "Authorization: Bearer ", "Authorization: Bearer wrong",
        "Authorization: Bearer " + token + "0", "Authorization: Bearer " + token.substr(1),
        "Authorization: Basic dXNlcjpwYXNz", "Authorization: Token " + token,
        "Authorization: " + token, "Authorization: Bearer " + upper,
        "Authorization: Bearer " + std::string(token.size(), 'a'),
        "Authorization: ", "Authorization: Bearer " + token.substr(0, token.size() / 2),
        "Authorization: Bearer " + std::string(8000, 'f'), "X-Authorization: Bearer " + token});
    std::vector<std::string> lines = {host_};
    if (authorization != "-") {  // "-": no Authorization at all
      lines.push_back(authorization);
    }
    switch (random_.below(4)) {
      case 0: {  // a body request, with its valid body when it has one
        const std::string body = target_.body ? target_.body->validBody() : std::string();
        if (target_.body && !target_.body->content_type.empty()) {
          lines.push_back("Content-Type: " + target_.body->content_type);
        }
        lines.push_back("Content-Length: " + std::to_string(body.size()));
        return plain(request(bodyMethod(), bodyTarget(), lines, body));
      }
      default:
        return plain(request("GET", random_.pick(target_.answering_paths), lines));
    }
  }

  HostileRequest foreignHost() {
    const std::string port = std::to_string(target_.port);
    const std::string wrong_port = std::to_string(target_.port == 65535 ? 1 : target_.port + 1);
    const std::vector<std::vector<std::string>> hosts = {{"Host: evil.example"},
                                                         {"Host: evil.example:" + port},
                                                         {"Host: 127.0.0.2"},
                                                         {"Host: 127.0.0.1:" + wrong_port},
                                                         {"Host: localhost:" + wrong_port},
                                                         {"Host: localhost.evil.example"},
                                                         {"Host: [::2]"},
                                                         {"Host: 0.0.0.0:" + port},
                                                         {"Host: 10.0.0.1"},
                                                         {"Host: 2130706433"},
                                                         {"Host: 127.1"},
                                                         {"Host: evil.example", "Host: localhost"},
                                                         {"Host: localhost", "Host: localhost"},
                                                         {},
                                                         {"Host: a b"},
                                                         {"Host: [::1"},
                                                         {"Host: user@localhost"},
                                                         {"Host: 127.0.0.1:" + port + "x"},
                                                         {"Host: localhost:-1"},
                                                         {"Host: localhost:99999999"},
                                                         {"Host: " + std::string(2000, 'h')},
                                                         {"Host: localhost/api"},
                                                         {"Host: \x01localhost"}};
    std::vector<std::string> lines = random_.pick(hosts);
    if (!auth_.empty()) {
      lines.push_back(auth_);
    }
    std::vector<std::string> targets = target_.answering_paths;
    targets.push_back(target_.public_path);
    return plain(request("GET", random_.pick(targets), lines));
  }

  /// Names no library may take: traversal, encoded separators and NULs, then the library's own.
  std::string hostileName() {
    std::vector<std::string> names = {"..%2f..%2fevil",         "%2e%2e", "..",    "%00", "a%2fb",
                                      "%2e%2e%2fstate%2ftoken", "%c0%ae", "a%5cb", "%2e"};
    const DocumentLibrary& library = *target_.documents;
    names.insert(names.end(), library.refused_names.begin(), library.refused_names.end());
    return random_.pick(names);
  }

  HostileRequest badDocumentName() {
    const DocumentLibrary& library = *target_.documents;
    const std::string item = library.collection + "/" + hostileName();
    switch (random_.below(3)) {
      case 0: {  // a valid document under the name
        std::vector<std::string> lines = headers();
        lines.push_back("Content-Type: " + library.content_type);
        lines.push_back("Content-Length: " + std::to_string(library.valid_document.size()));
        return plain(request("PUT", item, lines, library.valid_document));
      }
      case 1: {
        std::vector<std::string> lines = headers();
        lines.push_back("Accept: " + library.content_type);
        return plain(request("GET", item, lines));
      }
      default:
        return plain(request("DELETE", item, headers()));
    }
  }

  HostileRequest badDocument() {
    const DocumentLibrary& library = *target_.documents;
    const std::string document = random_.pick(library.refused_documents);
    std::vector<std::string> lines = headers();
    lines.push_back("Content-Type: " + library.content_type);
    lines.push_back("Content-Length: " + std::to_string(document.size()));
    return plain(request("PUT", library.collection + "/" + library.free_name, lines, document));
  }

  HostileRequest documentWrongContentType() {
    const DocumentLibrary& library = *target_.documents;
    std::vector<std::string> lines = headers();
    lines.push_back("Content-Type: " +
                    random_.pick(std::vector<std::string>{"application/json", "text/plain",
                                                          library.content_type + "2"}));
    lines.push_back("Content-Length: " + std::to_string(library.valid_document.size()));
    return plain(request("PUT", library.collection + "/" + library.free_name, lines,
                         library.valid_document));
  }

  /// A GET of `path` the target answers with 200 (the public one without the token).
  [[nodiscard]] std::string validGet(const std::string& path) const {
    return request("GET", path,
                   path == target_.public_path ? std::vector<std::string>{host_} : headers());
  }

  HostileRequest pipelinedValid() {
    const std::size_t count = random_.between(2, 10);
    HostileRequest made;
    for (std::size_t index = 0; index < count; ++index) {
      made.bytes +=
          validGet(index % 2 == 0 ? target_.public_path : random_.pick(target_.answering_paths));
    }
    made.may_succeed = true;
    made.valid_requests_ahead = count;
    return made;
  }

  HostileRequest pipelinedJunk() {
    HostileRequest made;
    made.bytes = validGet(target_.public_path);
    switch (random_.below(3)) {
      case 0:
        made.bytes += random_.bytes(random_.between(1, 500));
        break;
      case 1:
        made.bytes += badRequestLine().bytes;
        break;
      default:  // a request of some method (never HEAD: its answer has no body), then junk
        made.bytes +=
            request(random_.pick(std::vector<std::string>{"GET", "DELETE", "PUT", "BREW", "get"}),
                    random_.pick(paths()), {host_}) +
            random_.word(random_.between(1, 50)) + "\r\n";
        break;
    }
    made.bytes += validGet(target_.public_path);
    made.may_succeed = true;
    made.valid_requests_ahead = 1;
    return made;
  }

  HostileRequest truncated() {
    std::string whole;
    switch (random_.below(3)) {
      case 0:
        whole = validGet(target_.public_path);
        break;
      case 1:
        whole = validGet(random_.pick(target_.answering_paths));
        break;
      default:
        whole = target_.body && target_.body->json
                    ? withBody(invalidJson().substr(0, target_.max_body_bytes), false)
                    : withBody(harmlessBody(), false);
        break;
    }
    HostileRequest made;
    const std::size_t roll = random_.below(100);
    if (roll < 10) {
      made.ending = ClientEnding::kReset;
    } else if (roll < 15) {
      whole.clear();  // connected, then half-closed at once
    }
    made.bytes = whole.substr(0, whole.empty() ? 0 : random_.below(whole.size()));
    return made;
  }

  /// A harmless request, then damaged: bytes flipped, inserted or deleted, or the whole
  /// replaced by garbage, or a header padded. None of the harmless requests changes state, and
  /// a few edits cannot make one that does.
  HostileRequest damagedRequest() {
    const std::string body = harmlessBody();
    std::vector<std::string> body_lines = bodyHeaders();
    body_lines.push_back("Content-Length: " + std::to_string(body.size()));
    std::vector<std::string> chunked_lines = bodyHeaders();
    chunked_lines.emplace_back("Transfer-Encoding: chunked");
    const std::vector<std::string> bases = {
        validGet(target_.public_path), validGet(random_.pick(target_.answering_paths)),
        request(bodyMethod(), bodyTarget(), body_lines, body),
        request(bodyMethod(), bodyTarget(), chunked_lines, chunked(body, 100)),
        request("GET", target_.public_path + "/%2e%2e/b?x=%zz", headers())};
    std::string damaged = random_.pick(bases);
    const std::size_t kind = random_.below(10);
    if (kind == 0) {
      damaged = random_.bytes(random_.below(600));
    } else if (kind == 1) {
      damaged.insert(damaged.find("\r\n") + 2,
                     "X-Pad: " + std::string(random_.below(target_.max_head_bytes), 'p') + "\r\n");
    } else {
      static constexpr char kInserted[] = {'\r', '\n', ':', '%', ' ', '\0', '/', '.'};
      const std::size_t edits = random_.between(1, 6);
      for (std::size_t edit = 0; edit < edits && !damaged.empty(); ++edit) {
        const std::size_t at = random_.below(damaged.size());
        switch (random_.below(3)) {
          case 0:
            damaged[at] = static_cast<char>(random_.below(256));
            break;
          case 1:
            damaged.insert(at, 1, kInserted[random_.below(sizeof(kInserted))]);
            break;
          default:
            damaged.erase(at, random_.between(1, 4));
            break;
        }
      }
    }
    // Damage may leave a request valid (a padded header, an edit inside a value).
    return plain(std::move(damaged), true);
  }

  HostileRequest valid() {
    std::vector<std::string> choices = target_.answering_paths;
    choices.push_back(target_.public_path);
    return plain(validGet(random_.pick(choices)), true);
  }

  const HostileTarget& target_;
  Random& random_;
  std::string host_;
  std::string auth_;
};

/// Whether `target` has what `family` aims at.
bool supports(const HostileTarget& target, HostileFamily family) {
  switch (family) {
    case HostileFamily::kBadQueryValue:
      return target.query && !target.query->parameters.empty();
    case HostileFamily::kMalformedId:
    case HostileFamily::kUnknownId:
      return !target.collection.empty();
    case HostileFamily::kChunkedBodyOverLimit:
      return target.max_body_bytes <= kLargestLimitToExceedByChunks;
    case HostileFamily::kBadJsonBody:
      return target.body && target.body->json && !target.body->json->members.empty();
    case HostileFamily::kWrongContentType:
      return target.body && target.body->checks_content_type;
    case HostileFamily::kBadCredentials:
      return !target.token.empty();
    case HostileFamily::kForeignHost:
      return target.checks_host;
    case HostileFamily::kBadDocumentName:
    case HostileFamily::kDocumentWrongContentType:
    case HostileFamily::kProtectedDocumentRemoval:
      return target.documents.has_value();
    case HostileFamily::kBadDocument:
      return target.documents && !target.documents->refused_documents.empty();
    default:
      return true;
  }
}

}  // namespace

const std::vector<HostileFamily>& allHostileFamilies() {
  static const std::vector<HostileFamily> families = [] {
    std::vector<HostileFamily> all;
    for (const FamilyEntry& entry : kFamilies) {
      all.push_back(entry.family);
    }
    return all;
  }();
  return families;
}

std::string_view familyName(HostileFamily family) {
  for (const FamilyEntry& entry : kFamilies) {
    if (entry.family == family) {
      return entry.name;
    }
  }
  return "unknown-family";
}

std::string JsonShape::validDocument() const {
  std::string object = "{";
  for (const JsonMember& member : members) {
    object += (object.size() > 1 ? "," : "") + ("\"" + member.name + "\":" + member.valid_value);
  }
  object += "}";
  return array_of_objects ? "[" + object + "]" : object;
}

std::vector<HostileFamily> familiesFor(const HostileTarget& target) {
  std::vector<HostileFamily> families;
  for (const HostileFamily family : allHostileFamilies()) {
    if (supports(target, family)) {
      families.push_back(family);
    }
  }
  return families;
}

std::vector<HostileRequest> hostileCorpus(const HostileTarget& target, std::uint64_t seed,
                                          std::size_t count) {
  const std::vector<HostileFamily> families = familiesFor(target);
  std::vector<HostileRequest> corpus;
  corpus.reserve(count);
  for (std::size_t index = 0; index < count; ++index) {
    Random random(seed, index);
    RequestMaker maker(target, random);
    corpus.push_back(maker.make(families[index % families.size()]));
  }
  return corpus;
}

// ---- sending ---------------------------------------------------------------------------------

int firstStatus(std::uint16_t port, const HostileRequest& request,
                std::chrono::milliseconds timeout) {
  return conformance::firstStatus(port, request.bytes, request.ending, timeout);
}

std::vector<int> firstStatuses(std::uint16_t port, const std::vector<HostileRequest>& corpus,
                               std::chrono::milliseconds timeout, unsigned parallel) {
  std::vector<int> statuses(corpus.size(), -3);
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  for (unsigned thread = 0; thread < parallel; ++thread) {
    threads.emplace_back([&] {
      for (std::size_t index = next++; index < corpus.size(); index = next++) {
        statuses[index] = firstStatus(port, corpus[index], timeout);
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  return statuses;
}

HostileExchange exchangeUntilClosed(std::uint16_t port, const HostileRequest& request,
                                    std::chrono::milliseconds timeout) {
  HostileExchange result;
  LoopbackSocket socket(port);
  if (!socket.connected()) {
    return result;
  }
  result.connected = true;
  if (!socket.send(request.bytes)) {
    result.reset = true;  // the server closed early (e.g. a refused oversized head)
  }
  if (request.ending == ClientEnding::kReset) {
    socket.resetAndClose();
    return result;
  }
  socket.shutdownSend();
  switch (socket.readToEnd(result.received, std::chrono::steady_clock::now() + timeout)) {
    case LoopbackSocket::ReadEnd::kReset:
      result.reset = true;
      break;
    case LoopbackSocket::ReadEnd::kTimeout:
      result.timed_out = true;
      break;
    case LoopbackSocket::ReadEnd::kDone:
    case LoopbackSocket::ReadEnd::kClosed:
      break;
  }
  return result;
}

std::string printable(std::string_view bytes, std::size_t limit) {
  std::string text;
  for (const char character : bytes.substr(0, limit)) {
    const auto byte = static_cast<unsigned char>(character);
    if (character == '\r') {
      text += "\\r";
    } else if (character == '\n') {
      text += "\\n";
    } else if (byte >= 0x20 && byte < 0x7f && character != '\\') {
      text += character;
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", byte);
      text += escaped;
    }
  }
  if (bytes.size() > limit) {
    text += "... (" + std::to_string(bytes.size()) + " bytes)";
  }
  return text;
}

}  // namespace benchd::testing
