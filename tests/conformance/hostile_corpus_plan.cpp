#include "hostile_corpus_plan.hpp"

#include "hostile_requests.hpp"

#include <benchd/sdk/limits.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace benchd::testing {
namespace {

constexpr std::uint64_t kSeed = 20251201;
constexpr std::size_t kRequests = 900;
/// Stands for the plugin's name while the generator builds its paths; replaced by {a}.
constexpr std::string_view kNameStandIn = "zq-plugin-name-zq";
/// The port the generator writes into absolute-form targets and Host values; no plugin reads
/// them (CONTRACT.md: a Host is not checked), so a fixed one keeps the file the same everywhere.
constexpr std::uint16_t kPort = 8080;
/// Names are 1 to 64 characters (CONTRACT.md section 1).
constexpr std::size_t kLongestName = 64;
/// How near the header limit a head may come, beyond what the name's length shifts it, before
/// parsers that count the limit a little differently (the request line, the final CRLF) could
/// answer differently.
constexpr std::size_t kLimitMargin = 256;
/// The file ships in the benchd package: requests longer than this (heads of thousands of
/// header fields, 5,000 of them about 75 KiB) are left out. The limit they test is reached by
/// the shorter requests of the same family, and by header-over-limit and huge-target.
constexpr std::size_t kLongestRequest = std::size_t{40} * 1024;

/// An approach plugin's service as the generator aims at it: its paths under /<plugin>/, its
/// limits from the SDK, the movies it takes as JSON (the core's reader, movie_json_reader.cpp:
/// `title` required, unknown members ignored, null read as absent).
HostileTarget pluginTarget(const std::string& plugin, std::uint16_t port) {
  const std::string movies = "/" + plugin + "/movies";
  const std::string delay = "delayCallDepth=0&delayInMillis=0";
  HostileTarget target;
  target.port = port;
  target.host = "127.0.0.1:" + std::to_string(port);
  target.max_head_bytes = sdk::kMaxRequestHeaderBytes;
  target.max_body_bytes = sdk::kMaxRequestBodyBytes;
  target.public_path = "/health";
  target.answering_paths = {movies + "?directorLastName=Allen&" + delay,
                            "/" + plugin + "/epoch-millis?" + delay};
  target.other_paths = {"/", "/nope", "/" + plugin, movies, "/" + plugin + "/epoch-millis"};
  target.collection = movies;
  target.query = QueryResource{
      movies, {{"directorLastName", "Allen"}, {"delayCallDepth", "0"}, {"delayInMillis", "0"}}};
  JsonShape movie;
  movie.array_of_objects = true;
  movie.members = {
      {"title", "\"T\"", {"1", "true", "null", "[]", "{}", "\"\\udc00\""}, true},
      {"releaseYear", "2000", {"\"2000\"", "1.5", "4294967296", "true", "[]"}, false},
      {"genre", "\"DRAMA\"", {"\"drama\"", "\"NOPE\"", "\"\"", "1", "{}"}, false},
      {"directors",
       R"([{"firstName":"A","lastName":"B"}])",
       {"{}", "1", "\"A\"", "[1]", R"([{"birthday":"2000-13-01"}])", R"([{"firstName":1}])"},
       false},
      {"rating", "7.5", {"\"7.5\"", "true", "[]", "{}"}, false}};
  target.body = BodyResource{"POST", movies + "?" + delay, "application/json", false, movie, {}};
  return target;
}

std::vector<std::string> splitAtStandIn(const std::string& bytes) {
  std::vector<std::string> pieces(1);
  for (std::size_t at = 0; at < bytes.size();) {
    if (std::string_view(bytes).substr(at).starts_with(kNameStandIn)) {
      pieces.emplace_back();
      at += kNameStandIn.size();
    } else {
      pieces.back() += bytes[at++];
    }
  }
  return pieces;
}

/// True when a name of another length could move the head across the header limit.
bool nearTheHeaderLimit(const std::string& bytes) {
  const std::size_t head_end = bytes.find("\r\n\r\n");
  const std::string_view head =
      std::string_view(bytes).substr(0, head_end == std::string::npos ? bytes.size() : head_end);
  std::size_t names = 0;
  for (std::size_t at = head.find(kNameStandIn); at != std::string_view::npos;
       at = head.find(kNameStandIn, at + 1)) {
    ++names;
  }
  if (names == 0)
    return false;
  const std::size_t shortest = head.size() - names * (kNameStandIn.size() - 1);
  const std::size_t longest = head.size() + names * (kLongestName - kNameStandIn.size());
  return longest + kLimitMargin >= sdk::kMaxRequestHeaderBytes &&
         shortest <= sdk::kMaxRequestHeaderBytes + kLimitMargin;
}

}  // namespace

std::vector<conformance::HostileCase> plannedHostileCorpus() {
  const std::vector<HostileRequest> generated =
      hostileCorpus(pluginTarget(std::string(kNameStandIn), kPort), kSeed, kRequests);
  std::vector<conformance::HostileCase> corpus;
  for (const HostileRequest& request : generated) {
    if (nearTheHeaderLimit(request.bytes) || request.bytes.size() > kLongestRequest)
      continue;
    conformance::HostileCase hostile;
    hostile.family = std::string(familyName(request.family));
    hostile.ending = request.ending;
    hostile.pieces = splitAtStandIn(request.bytes);
    corpus.push_back(std::move(hostile));
  }
  return corpus;
}

}  // namespace benchd::testing
