#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace benchd::runner {

/// The order in which one round of a row runs its approaches: a permutation of 0..count-1,
/// shuffled (Fisher–Yates) by a generator seeded from (seed, row_index, round), so drift of the
/// machine during a row hits every approach alike and a run's order can be reproduced from the
/// seed it records. The draw is benchd's own (std::mt19937_64 and rejection sampling, no
/// std::uniform_int_distribution), so the same seed gives the same order with every standard
/// library. Pure function.
[[nodiscard]] std::vector<std::size_t> roundOrder(std::size_t count, std::uint64_t seed,
                                                  std::size_t row_index, std::uint32_t round);

/// A seed for a run that was given none: from the clock and the process, different per run.
[[nodiscard]] std::uint64_t freshOrderSeed();

}  // namespace benchd::runner
