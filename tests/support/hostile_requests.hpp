#pragma once
// The one corpus of hostile HTTP requests every suite that needs one draws from: the approach
// plugins (tests/conformance), the daemon (tests/control) and the HTTP layer (tests/http).
//
// A corpus is drawn from families (malformed request lines, bodies over the limit, bad
// credentials, ...), each aimed at the server under test through a HostileTarget: its Host,
// its token, its limits and a few of its resources. A family that needs a part the target lacks
// (a token, a JSON resource, a document library) is left out. The same seed and target give
// the same corpus on every machine, and request i does not depend on the requests before it,
// so answers can be compared request by request and a failure names the request that caused
// it.
//
// The corpus says what a request is (its family, whether it may be valid, how the client ends
// the connection); what a server must answer is each suite's contract, stated there.

#include <benchd/conformance/first_answer.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace benchd::testing {

/// The families of hostile requests. hostileCorpus() cycles through those a target supports,
/// in this order. kValid stays last (hostile_requests.cpp counts on it).
enum class HostileFamily {
  kRandomBytes,       ///< bytes or words that are no request at all
  kBadRequestLine,    ///< a broken method, target or HTTP version
  kUnknownMethod,     ///< a method the resource does not take, or no method at all
  kOddPath,           ///< traversal, empty or encoded segments, control bytes, absolute form
  kHugeTarget,        ///< a target of kilobytes
  kBadQueryValue,     ///< the query resource's parameters with hostile values
  kMalformedId,       ///< an item of the collection by an id that is no id
  kUnknownId,         ///< an item of the collection that does not exist
  kHeaderOverLimit,   ///< one header field that takes the head over its limit
  kManyHeaders,       ///< hundreds or thousands of small header fields
  kBadHeaderSyntax,   ///< no colon, spaces in names, folding, control bytes
  kBareLf,            ///< lines ended by LF alone
  kNulBytes,          ///< NUL in the target, in a header value, or nothing but NULs
  kBadContentLength,  ///< negative, not a number, repeated, or beside chunked encoding
  kUnrepresentableContentLength,  ///< a Content-Length no 64-bit integer holds
  kBadChunking,                   ///< chunked bodies with broken sizes, extensions or line ends
  kBodyOverLimit,                 ///< a Content-Length over the body limit (the body is not sent)
  kChunkedBodyOverLimit,          ///< a chunked body that grows past the body limit
  kBadJsonBody,                   ///< the body resource's JSON broken, cut, nested deep or mistyped
  kWrongContentType,              ///< the body resource's valid body, a wrong or no Content-Type
  kBadCredentials,                ///< a missing, malformed or wrong bearer token
  kForeignHost,               ///< a Host naming another server, or none, or two, or a broken one
  kBadDocumentName,           ///< the document library read, written or removed by a hostile name
  kBadDocument,               ///< a well-named upload that is not a valid document
  kDocumentWrongContentType,  ///< a valid upload with the wrong Content-Type
  kProtectedDocumentRemoval,  ///< DELETE of a document that cannot be removed
  kPipelinedValid,            ///< several valid requests in one write
  kPipelinedJunk,             ///< a valid request followed by junk (and another valid one)
  kTruncated,                 ///< a request cut short, then half-closed or reset
  kDamagedRequest,            ///< a harmless request with bytes flipped, inserted or deleted
  kValid,                     ///< a plain valid request among the hostile ones
};

/// Every family, in declaration order.
[[nodiscard]] const std::vector<HostileFamily>& allHostileFamilies();
/// The family's name in messages, e.g. "bad-request-line".
[[nodiscard]] std::string_view familyName(HostileFamily family);

/// One member of a JSON object the target takes, with a value it accepts and values it refuses
/// there.
struct JsonMember {
  std::string name;
  std::string valid_value;                  ///< JSON text, e.g. "\"scenarios-ci.csv\""
  std::vector<std::string> refused_values;  ///< JSON text; each one makes the body refused
  bool required = false;                    ///< a body without it is refused
};

/// The JSON a body resource takes: an object, or an array of such objects.
struct JsonShape {
  bool array_of_objects = false;
  /// The object's members. The first takes a scalar, so that deep nesting there is refused.
  std::vector<JsonMember> members;
  bool refuses_unknown_members = false;

  /// The object (or a one-element array of it) of every member's valid value.
  [[nodiscard]] std::string validDocument() const;
};

/// A resource that takes a request body.
struct BodyResource {
  std::string method = "POST";
  std::string target;  ///< origin form, query included when the resource needs one
  std::string content_type;
  /// It refuses (415) a body sent without `content_type`.
  bool checks_content_type = false;
  /// Set: the body is JSON of this shape, and validBody() is the shape's valid document.
  std::optional<JsonShape> json;
  std::string valid_body;  ///< without `json`: a body the resource accepts

  [[nodiscard]] std::string validBody() const { return json ? json->validDocument() : valid_body; }
};

/// A resource of the query form `path?name=value&...`.
struct QueryResource {
  std::string path;
  /// Every parameter with a value the resource accepts.
  std::vector<std::pair<std::string, std::string>> parameters;
};

/// Named documents uploaded with PUT `collection/name`, read with GET and removed with DELETE.
struct DocumentLibrary {
  std::string collection;  ///< e.g. "/api/v1/scenario-files"
  std::string content_type;
  std::string valid_document;
  std::vector<std::string> refused_documents;  ///< each refused under any name
  /// Names its naming rules refuse (percent-encoded as sent); the corpus adds traversal and
  /// encoding tricks of its own.
  std::vector<std::string> refused_names;
  std::string free_name;       ///< a valid name no document has
  std::string protected_name;  ///< a document DELETE refuses (409)
};

/// The server a corpus is aimed at.
struct HostileTarget {
  std::uint16_t port = 0;  ///< for absolute-form targets and Host values naming another port
  std::string host;        ///< the Host value it accepts, e.g. "127.0.0.1:8080"
  /// The bearer token every request but the public one carries; empty: it asks for none.
  std::string token;
  /// It refuses a Host that names another server (so kForeignHost applies).
  bool checks_host = false;
  std::size_t max_head_bytes = 0;  ///< request line and header fields; not 0
  std::size_t max_body_bytes = 0;  ///< not 0

  std::string public_path;                   ///< GET answers 200 without the token; not empty
  std::vector<std::string> answering_paths;  ///< GET answers 200 with the token; not empty
  std::vector<std::string> other_paths;      ///< aimed at too; need not exist
  std::string collection;                    ///< items are collection + "/" + id; empty: none
  std::optional<QueryResource> query;
  /// Without one, the families with a body aim at POST public_path.
  std::optional<BodyResource> body;
  std::optional<DocumentLibrary> documents;
};

/// How the client ends its side once the bytes are written (the conformance library's, which
/// sends the plugins' corpus the same way).
using conformance::ClientEnding;

struct HostileRequest {
  HostileFamily family = HostileFamily::kRandomBytes;
  std::string bytes;  ///< written to a fresh connection
  ClientEnding ending = ClientEnding::kHalfClose;
  /// A server may answer 2xx: the request is valid, or a lenient but harmless reading of it is
  /// (HTTP/1.0, a path a server may normalise, a header it may ignore).
  bool may_succeed = false;
  bool first_is_head = false;  ///< the first request is HEAD: its answer has no body
  /// The bytes begin with this many valid requests, each owed an answer in order.
  std::size_t valid_requests_ahead = 0;
};

/// The families `target` supports, in declaration order.
[[nodiscard]] std::vector<HostileFamily> familiesFor(const HostileTarget& target);

/// `count` requests, request i from familiesFor(target)[i % size], varied by a generator seeded
/// with (`seed`, i).
[[nodiscard]] std::vector<HostileRequest> hostileCorpus(const HostileTarget& target,
                                                        std::uint64_t seed, std::size_t count);

/// Above this body limit the corpus leaves kChunkedBodyOverLimit out: a body over a larger limit
/// costs megabytes per request, and kBodyOverLimit tests the limit from the head alone.
inline constexpr std::size_t kLargestLimitToExceedByChunks = std::size_t{64} * 1024;

// ---- sending -------------------------------------------------------------------------------

/// The status of the first answer on a fresh loopback connection to `port`: 0 when the server
/// closed without one (or the client reset the connection), -1 when nothing came within
/// `timeout`, -2 when the connection could not be made. The client resets the connection when
/// done, so tens of thousands of them do not pile up in TIME_WAIT.
int firstStatus(std::uint16_t port, const HostileRequest& request,
                std::chrono::milliseconds timeout);

/// firstStatus for every request, `parallel` connections at a time; results in corpus order.
std::vector<int> firstStatuses(std::uint16_t port, const std::vector<HostileRequest>& corpus,
                               std::chrono::milliseconds timeout, unsigned parallel);

/// Everything that came back on a connection until the server closed or reset it.
struct HostileExchange {
  bool connected = false;
  bool reset = false;      ///< the server reset the connection (or refused the rest of the bytes)
  bool timed_out = false;  ///< it neither closed nor reset within the timeout
  std::string received;
};

/// Sends the request on a fresh loopback connection, ends the client's side as it says and,
/// unless that was a reset, reads until the server closes (or resets, or `timeout` passes).
HostileExchange exchangeUntilClosed(std::uint16_t port, const HostileRequest& request,
                                    std::chrono::milliseconds timeout);

/// The bytes shown in a failure message: printable ASCII kept, CR and LF as \r and \n, the rest
/// as \xNN, cut at `limit` (with the full size said).
[[nodiscard]] std::string printable(std::string_view bytes, std::size_t limit = 160);

}  // namespace benchd::testing
