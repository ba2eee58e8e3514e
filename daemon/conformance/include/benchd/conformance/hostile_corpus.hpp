#pragma once
// The hostile-request corpus of the plugin contract, as data: malformed and abusive requests,
// each with the first answers a conforming plugin may give it (CONTRACT.md section 7: one answer
// to one request, whatever the plugin; an incomplete request is answered 400 or closed).
// benchd installs it as <datadir>/benchd/conformance/hostile-requests.txt; hostileCorpusPath()
// finds it.
//
// The file is text, one request a line, so a diff shows what changed:
//
//   # comment
//   <family> TAB <ending> TAB <allowed answers> TAB <bytes>
//
// - family: the generator's family name, e.g. "bad-chunking";
// - ending: "half-close" or "reset" (ClientEnding);
// - allowed answers: one or more first answers joined by " or ", each a status code (100 to
//   599) or "closed" (closed without an answer), e.g. "404" or "400 or closed";
// - bytes: printable ASCII as itself, except '\' and '{'; escapes \\ \r \n \t and \xNN (two
//   lower-case hex digits) for any byte; \*N: followed by one character or escape, that byte N
//   times (N decimal, for the long runs of oversized heads); and {a}, the plugin's name, which
//   each plugin gets in place (its paths are /{a}/...).
//
// The requests whose answer would depend on the length of the plugin's name (a head within a
// few bytes of the header limit) are left out when the file is written.

#include <benchd/conformance/first_answer.hpp>

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::conformance {

/// One request of the corpus.
struct HostileCase {
  std::string family;
  ClientEnding ending = ClientEnding::kHalfClose;
  /// The first answers the contract allows, as firstStatus() reports them (a status code, or
  /// kClosedWithoutAnswer), in the file's order, each once; never empty in a parsed case.
  std::vector<int> allowed_answers;
  /// The bytes, split where the plugin's name goes: bytesFor() joins them with the name.
  std::vector<std::string> pieces;
  std::size_t line = 0;  ///< in the file it was read from, for messages

  /// The bytes aimed at the plugin called `plugin_name`.
  [[nodiscard]] std::string bytesFor(std::string_view plugin_name) const;
  /// Whether `first_answer` (what firstStatus() returned) is one of the allowed answers.
  [[nodiscard]] bool allows(int first_answer) const;
  /// The allowed answers as the file writes them: "404", "400 or closed".
  [[nodiscard]] std::string allowedText() const;
};

/// A corpus file that does not follow the format. what() is "file:line: what is wrong".
class HostileCorpusError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The placeholder of the plugin's name in the file (between the pieces of a HostileCase).
inline constexpr std::string_view kPluginNamePlaceholder = "{a}";

/// Parses the text of a corpus file; `source` names it in errors. Throws HostileCorpusError.
std::vector<HostileCase> parseHostileCorpus(std::string_view text, const std::string& source);

/// Reads and parses the file at `path`. Throws HostileCorpusError (unreadable file included).
std::vector<HostileCase> readHostileCorpus(const std::filesystem::path& path);

/// One corpus line (without its newline) for the case; each piece is escaped, the pieces
/// joined by the placeholder.
std::string formatHostileCase(const HostileCase& hostile);

/// The first `per_family` cases of each family, in corpus order; all of them when 0.
std::vector<HostileCase> sampleHostileCorpus(const std::vector<HostileCase>& corpus,
                                             std::size_t per_family);

/// Bytes as a message shows them: printable ASCII kept, CR and LF as \r and \n, the rest as
/// \xNN, cut at `limit` (with the full size said).
std::string printableBytes(std::string_view bytes, std::size_t limit = 160);

/// Where the corpus is: the source tree's copy when `build_tree`, else the installed one
/// relative to the benchd executable `executable` (<prefix>/bin/benchd ->
/// <prefix>/share/benchd/conformance/hostile-requests.txt).
std::filesystem::path hostileCorpusPath(bool build_tree, const std::filesystem::path& executable);

}  // namespace benchd::conformance
