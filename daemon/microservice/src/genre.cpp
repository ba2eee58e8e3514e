#include <benchd/microservice/genre.hpp>

#include <array>
#include <cstddef>

namespace benchd::microservice {
namespace {

// Indexed by the Genre enumerator.
constexpr std::array<std::string_view, 11> kGenreNames = {
    "ACTION", "ADVENTURE", "ANIMATION", "COMEDY",          "DRAMA",    "FANTASY",
    "HORROR", "MYSTERY",   "ROMANCE",   "SCIENCE_FICTION", "THRILLER",
};

static_assert(static_cast<std::size_t>(Genre::kThriller) + 1 == kGenreNames.size());

}  // namespace

std::string_view genreName(Genre genre) noexcept {
  return kGenreNames[static_cast<std::size_t>(genre)];
}

std::optional<Genre> genreFromName(std::string_view name) noexcept {
  for (std::size_t index = 0; index < kGenreNames.size(); ++index) {
    if (kGenreNames[index] == name) {
      return static_cast<Genre>(index);
    }
  }
  return std::nullopt;
}

}  // namespace benchd::microservice
