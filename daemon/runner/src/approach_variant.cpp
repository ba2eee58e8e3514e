#include <benchd/runner/approach_variant.hpp>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>
#include <utility>

namespace benchd::runner {
namespace {

bool isNameCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

/// A variant's name becomes a file name (its charts) and a URL segment, so a value may hold no
/// path separator, besides the characters that structure the variant.
bool isValueCharacter(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte >= 0x20 && byte != 0x7f && c != ',' && c != ']' && c != '[' && c != '#' && c != '/' &&
         c != '\\';
}

/// Reads a variant left to right; every error names the text and where it went wrong.
class VariantReader {
 public:
  explicit VariantReader(std::string_view text) : text_(text) {}

  ApproachVariant read() {
    ApproachVariant variant;
    variant.plugin = name("the plugin name");
    if (peek('[')) {
      ++position_;
      readOptions(variant);
    }
    if (peek('#')) {
      ++position_;
      variant.label = name("a label after '#'");
    }
    if (position_ != text_.size()) {
      fail(std::string("unexpected '") + text_[position_] +
           "' (an approach is NAME, NAME[KEY=VALUE,...] or NAME#LABEL)");
    }
    return variant;
  }

 private:
  [[nodiscard]] bool peek(char c) const {
    return position_ < text_.size() && text_[position_] == c;
  }

  [[noreturn]] void fail(const std::string& reason) const {
    throw ApproachVariantError("approach '" + std::string(text_) + "': at character " +
                               std::to_string(position_ + 1) + ": " + reason);
  }

  std::string name(const char* what) {
    const std::size_t start = position_;
    while (position_ < text_.size() && isNameCharacter(text_[position_])) {
      ++position_;
    }
    if (position_ == start) {
      fail(std::string("expected ") + what + " (letters, digits, '-', '_', '.')");
    }
    return std::string(text_.substr(start, position_ - start));
  }

  void readOptions(ApproachVariant& variant) {
    for (;;) {
      std::string key = name("KEY=VALUE in the options");
      if (!peek('=')) {
        fail("expected '=' after option '" + key + "'");
      }
      ++position_;
      const std::size_t start = position_;
      while (position_ < text_.size() && isValueCharacter(text_[position_])) {
        ++position_;
      }
      const bool repeated = std::any_of(variant.options.begin(), variant.options.end(),
                                        [&key](const auto& option) { return option.first == key; });
      if (repeated) {
        fail("option '" + key + "' is given twice");
      }
      variant.options.emplace_back(std::move(key),
                                   std::string(text_.substr(start, position_ - start)));
      if (peek(',')) {
        ++position_;
        continue;
      }
      if (peek(']')) {
        ++position_;
        return;
      }
      fail(position_ == text_.size()
               ? std::string("the options are not closed with ']'")
               : "a value may not hold '" + std::string(1, text_[position_]) + "'");
    }
  }

  std::string_view text_;
  std::size_t position_ = 0;
};

}  // namespace

std::string ApproachVariant::name() const {
  std::string text = plugin;
  if (!options.empty()) {
    text += '[';
    for (std::size_t index = 0; index < options.size(); ++index) {
      text += (index == 0 ? "" : ",") + options[index].first + "=" + options[index].second;
    }
    text += ']';
  }
  if (!label.empty()) {
    text += "#" + label;
  }
  return text;
}

std::vector<std::string> ApproachVariant::optionArguments() const {
  std::vector<std::string> arguments;
  for (const auto& [key, value] : options) {
    std::string argument = key;
    argument += '=';
    argument += value;
    arguments.push_back(std::move(argument));
  }
  return arguments;
}

ApproachVariant parseApproachVariant(std::string_view text) {
  return VariantReader(text).read();
}

ApproachVariant aaPartner(const ApproachVariant& variant) {
  ApproachVariant partner = variant;
  partner.label = variant.label.empty() ? "2" : variant.label + "-2";
  return partner;
}

unsigned parseWorkerThreads(std::string_view text) {
  unsigned threads = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), threads);
  if (error != std::errc{} || end != text.data() + text.size() || threads < 1 ||
      threads > kMaxWorkerThreads) {
    throw std::invalid_argument(
        std::string(kThreadsVariantKey) + ": expected an integer from 1 to " +
        std::to_string(kMaxWorkerThreads) + ", got '" + std::string(text) + "'");
  }
  return threads;
}

}  // namespace benchd::runner
