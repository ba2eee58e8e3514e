#include "text_fields.hpp"

#include <benchd/scenario/json_nesting.hpp>

#include <array>
#include <cerrno>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>

namespace benchd::scenario {
namespace {

bool isBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

}  // namespace

std::string_view trimBlanks(std::string_view text) {
  while (!text.empty() && isBlank(text.front())) {
    text.remove_prefix(1);
  }
  while (!text.empty() && isBlank(text.back())) {
    text.remove_suffix(1);
  }
  return text;
}

std::vector<std::string_view> splitAt(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    if (end == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines = splitAt(text, '\n');
  if (!lines.empty() && lines.back().empty()) {
    lines.pop_back();
  }
  for (std::string_view& line : lines) {
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
  }
  return lines;
}

std::string formatNumber(double value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return {buffer.data(), result.ptr};
}

std::string readWholeFile(const std::filesystem::path& path, std::uintmax_t max_bytes) {
  std::error_code status_error;
  const auto status = std::filesystem::status(path, status_error);
  if (!std::filesystem::exists(status)) {
    throw std::runtime_error("no such file");
  }
  if (std::filesystem::is_directory(status)) {
    throw std::runtime_error("is a directory, not a file");
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw std::runtime_error("is not a regular file");
  }
  std::error_code size_error;
  const std::uintmax_t size = std::filesystem::file_size(path, size_error);
  if (!size_error && size > max_bytes) {
    throw std::runtime_error("is " + std::to_string(size) + " bytes, more than the " +
                             std::to_string(max_bytes) + " allowed");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    throw std::runtime_error(error != 0 ? std::generic_category().message(error)
                                        : std::string("cannot open the file"));
  }
  // Bounded even if the file grows while it is read.
  std::string content;
  std::array<char, 65536> chunk{};
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
    content.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (content.size() > max_bytes) {
      throw std::runtime_error("is more than the " + std::to_string(max_bytes) + " bytes allowed");
    }
  }
  if (in.bad()) {
    throw std::runtime_error("cannot read the file");
  }
  return content;
}

bool nestsDeeperThan(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) {
        return true;
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace benchd::scenario
