#pragma once

#include <optional>
#include <string_view>

namespace benchd::microservice {

/// A movie's genre. The enumerators are in the order of their JSON names, so ordering by
/// enumerator and ordering by name agree.
enum class Genre {
  kAction,
  kAdventure,
  kAnimation,
  kComedy,
  kDrama,
  kFantasy,
  kHorror,
  kMystery,
  kRomance,
  kScienceFiction,
  kThriller,
};

/// The JSON name, e.g. "SCIENCE_FICTION". The view refers to static storage.
[[nodiscard]] std::string_view genreName(Genre genre) noexcept;

/// The genre with this JSON name (case-sensitive); nullopt for anything else.
[[nodiscard]] std::optional<Genre> genreFromName(std::string_view name) noexcept;

}  // namespace benchd::microservice
