#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace benchd::microservice {

/// Hashes std::string and std::string_view alike, so string-keyed maps can be searched with a
/// string_view without building a std::string.
struct TransparentStringHash {
  using is_transparent = void;
  [[nodiscard]] std::size_t operator()(std::string_view text) const noexcept {
    return std::hash<std::string_view>{}(text);
  }
};

/// An unordered map from std::string that find() accepts string_view keys for.
template <typename Value>
using StringKeyedMap =
    std::unordered_map<std::string, Value, TransparentStringHash, std::equal_to<>>;

}  // namespace benchd::microservice
