#include "text_tail.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>

namespace benchd::postgres {

std::vector<std::string> lastLines(std::string_view text, std::size_t max_lines) {
  std::vector<std::string> lines;
  std::size_t end = text.size();
  while (end > 0 && lines.size() < max_lines) {
    const std::size_t newline = text.rfind('\n', end - 1);
    const std::size_t start = newline == std::string_view::npos ? 0 : newline + 1;
    if (end > start)
      lines.emplace_back(text.substr(start, end - start));
    end = newline == std::string_view::npos ? 0 : newline;
  }
  std::reverse(lines.begin(), lines.end());
  return lines;
}

std::vector<std::string> lastLinesOfFile(const std::filesystem::path& file, std::size_t max_lines) {
  constexpr std::streamoff kTailBytes = std::streamoff{16} * 1024;
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in)
    return {};
  const std::streamoff size = in.tellg();
  in.seekg(std::max<std::streamoff>(0, size - kTailBytes));
  const std::string tail{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return lastLines(tail, max_lines);
}

}  // namespace benchd::postgres
