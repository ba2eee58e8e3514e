#include <benchd/conformance/hostile_corpus.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

namespace benchd::conformance {
namespace {

/// A run of at least this many equal bytes is written as \*N: (a header of kilobytes of 'x').
constexpr std::size_t kShortestRun = 12;

constexpr std::string_view kHexDigits = "0123456789abcdef";

std::string_view endingName(ClientEnding ending) {
  return ending == ClientEnding::kReset ? "reset" : "half-close";
}

constexpr std::string_view kAnswerSeparator = " or ";
constexpr std::string_view kClosedWord = "closed";

/// Column 3: "404", "400 or closed". Throws HostileCorpusError naming the column.
std::vector<int> parseAllowedAnswers(std::string_view text, const std::string& where) {
  const auto refuse = [&] {
    return HostileCorpusError(where + ": column 3 (allowed answers): expected status codes " +
                              "from 100 to 599 or 'closed', joined by ' or ', got '" +
                              std::string(text) + "'");
  };
  std::vector<int> answers;
  for (std::size_t start = 0;;) {
    const std::size_t end = std::min(text.find(kAnswerSeparator, start), text.size());
    const std::string_view word = text.substr(start, end - start);
    int answer = kClosedWithoutAnswer;
    if (word != kClosedWord) {
      const auto [stop, error] = std::from_chars(word.data(), word.data() + word.size(), answer);
      if (word.empty() || error != std::errc{} || stop != word.data() + word.size() ||
          answer < 100 || answer > 599) {
        throw refuse();
      }
    }
    if (std::find(answers.begin(), answers.end(), answer) != answers.end())
      throw refuse();
    answers.push_back(answer);
    if (end == text.size())
      return answers;
    start = end + kAnswerSeparator.size();
  }
}

/// One byte as the file writes it.
void appendEscaped(std::string& out, char character) {
  const auto byte = static_cast<unsigned char>(character);
  switch (character) {
    case '\\':
      out += "\\\\";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\t':
      out += "\\t";
      return;
    default:
      break;
  }
  if (byte >= 0x20 && byte < 0x7f && character != '{') {
    out += character;
    return;
  }
  out += "\\x";
  out += kHexDigits[byte >> 4];
  out += kHexDigits[byte & 0xf];
}

void appendPiece(std::string& out, std::string_view piece) {
  for (std::size_t at = 0; at < piece.size();) {
    std::size_t run = 1;
    while (at + run < piece.size() && piece[at + run] == piece[at])
      ++run;
    if (run >= kShortestRun) {
      out += "\\*" + std::to_string(run) + ":";
      appendEscaped(out, piece[at]);
      at += run;
    } else {
      appendEscaped(out, piece[at]);
      ++at;
    }
  }
}

/// Reads the encoded bytes of one line into pieces; throws with `where` on a bad escape.
class BytesReader {
 public:
  BytesReader(std::string_view text, std::string where) : text_(text), where_(std::move(where)) {}

  std::vector<std::string> pieces() {
    std::vector<std::string> pieces(1);
    while (at_ < text_.size()) {
      if (text_.substr(at_).starts_with(kPluginNamePlaceholder)) {
        pieces.emplace_back();
        at_ += kPluginNamePlaceholder.size();
        continue;
      }
      if (text_.substr(at_).starts_with("\\*")) {
        at_ += 2;
        const std::size_t colon = text_.find(':', at_);
        std::size_t count = 0;
        const auto [end, error] = std::from_chars(
            text_.data() + at_, text_.data() + std::min(colon, text_.size()), count);
        if (colon == std::string_view::npos || error != std::errc{} ||
            end != text_.data() + colon || count == 0) {
          fail("\\* must be followed by a count and ':'");
        }
        at_ = colon + 1;
        pieces.back().append(count, oneByte());
        continue;
      }
      pieces.back() += oneByte();
    }
    return pieces;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw HostileCorpusError(where_ + ": column " + std::to_string(at_ + 1) + ": " + what);
  }

  char oneByte() {
    if (at_ >= text_.size())
      fail("the line ends inside an escape");
    const char first = text_[at_++];
    if (first == '{')
      fail("'{' outside the placeholder {a} must be written \\x7b");
    if (first != '\\')
      return first;
    if (at_ >= text_.size())
      fail("the line ends after '\\'");
    switch (text_[at_++]) {
      case '\\':
        return '\\';
      case 'r':
        return '\r';
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'x': {
        const std::size_t high = at_ < text_.size() ? kHexDigits.find(text_[at_]) : 0;
        const std::size_t low = at_ + 1 < text_.size() ? kHexDigits.find(text_[at_ + 1]) : 0;
        if (at_ + 1 >= text_.size() || high == std::string_view::npos ||
            low == std::string_view::npos) {
          fail("\\x must be followed by two lower-case hex digits");
        }
        at_ += 2;
        return static_cast<char>((high << 4) | low);
      }
      default:
        --at_;
        fail(std::string("unknown escape '\\") + text_[at_] + "'");
    }
  }

  std::string_view text_;
  std::string where_;
  std::size_t at_ = 0;
};

std::vector<std::string_view> splitTabs(std::string_view line, std::size_t fields) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (parts.size() + 1 < fields) {
    const std::size_t tab = line.find('\t', start);
    if (tab == std::string_view::npos)
      break;
    parts.push_back(line.substr(start, tab - start));
    start = tab + 1;
  }
  parts.push_back(line.substr(start));
  return parts;
}

}  // namespace

std::string HostileCase::bytesFor(std::string_view plugin_name) const {
  std::string bytes;
  for (std::size_t index = 0; index < pieces.size(); ++index) {
    if (index > 0)
      bytes += plugin_name;
    bytes += pieces[index];
  }
  return bytes;
}

bool HostileCase::allows(int first_answer) const {
  return std::find(allowed_answers.begin(), allowed_answers.end(), first_answer) !=
         allowed_answers.end();
}

std::string HostileCase::allowedText() const {
  std::string text;
  for (const int answer : allowed_answers) {
    if (!text.empty())
      text += kAnswerSeparator;
    text += answer == kClosedWithoutAnswer ? std::string(kClosedWord) : std::to_string(answer);
  }
  return text;
}

std::vector<HostileCase> parseHostileCorpus(std::string_view text, const std::string& source) {
  std::vector<HostileCase> corpus;
  std::size_t line_number = 0;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.empty() || line.front() == '#')
      continue;
    const std::string where = source + ":" + std::to_string(line_number);
    const std::vector<std::string_view> fields = splitTabs(line, 4);
    if (fields.size() != 4) {
      throw HostileCorpusError(where + ": expected 4 tab-separated fields (family, ending, " +
                               "allowed answers, bytes), got " + std::to_string(fields.size()));
    }
    HostileCase hostile;
    hostile.line = line_number;
    hostile.family = std::string(fields[0]);
    if (hostile.family.empty())
      throw HostileCorpusError(where + ": column 1 (family): empty");
    if (fields[1] == "half-close") {
      hostile.ending = ClientEnding::kHalfClose;
    } else if (fields[1] == "reset") {
      hostile.ending = ClientEnding::kReset;
    } else {
      throw HostileCorpusError(where + ": column 2 (ending): expected 'half-close' or 'reset', " +
                               "got '" + std::string(fields[1]) + "'");
    }
    hostile.allowed_answers = parseAllowedAnswers(fields[2], where);
    hostile.pieces = BytesReader(fields[3], where + ": column 4 (bytes)").pieces();
    corpus.push_back(std::move(hostile));
  }
  return corpus;
}

std::vector<HostileCase> readHostileCorpus(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw HostileCorpusError("cannot read the hostile-request corpus " + path.string());
  std::ostringstream text;
  text << file.rdbuf();
  return parseHostileCorpus(text.str(), path.string());
}

std::string formatHostileCase(const HostileCase& hostile) {
  std::string line = hostile.family;
  line += '\t';
  line += endingName(hostile.ending);
  line += '\t';
  line += hostile.allowedText();
  line += '\t';
  for (std::size_t index = 0; index < hostile.pieces.size(); ++index) {
    if (index > 0)
      line += kPluginNamePlaceholder;
    appendPiece(line, hostile.pieces[index]);
  }
  return line;
}

std::vector<HostileCase> sampleHostileCorpus(const std::vector<HostileCase>& corpus,
                                             std::size_t per_family) {
  if (per_family == 0)
    return corpus;
  std::map<std::string, std::size_t> taken;
  std::vector<HostileCase> sample;
  for (const HostileCase& hostile : corpus) {
    if (taken[hostile.family]++ < per_family)
      sample.push_back(hostile);
  }
  return sample;
}

std::string printableBytes(std::string_view bytes, std::size_t limit) {
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
      text += "\\x";
      text += kHexDigits[byte >> 4];
      text += kHexDigits[byte & 0xf];
    }
  }
  if (bytes.size() > limit)
    text += "... (" + std::to_string(bytes.size()) + " bytes)";
  return text;
}

}  // namespace benchd::conformance
