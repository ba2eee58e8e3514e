#pragma once

#include <string_view>

namespace benchd::microservice {

/// The text of scenarios/movies.json, embedded at build time: the 8 reference movies the
/// database is seeded with. Static storage.
[[nodiscard]] std::string_view seedMoviesJson() noexcept;

}  // namespace benchd::microservice
