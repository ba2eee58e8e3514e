#include <benchd/runner/round_order.hpp>

#include <unistd.h>

#include <chrono>
#include <random>
#include <utility>

namespace benchd::runner {
namespace {

/// SplitMix64's finaliser: spreads (seed, row, round) over the generator's whole seed space, so
/// neighbouring rows and rounds do not start from neighbouring states.
std::uint64_t mixed(std::uint64_t value) {
  value += 0x9e3779b97f4a7c15ULL;
  value = (value ^ (value >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27U)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31U);
}

/// A uniform integer in [0, bound) without modulo bias.
std::uint64_t below(std::mt19937_64& generator, std::uint64_t bound) {
  const std::uint64_t limit = std::mt19937_64::max() - std::mt19937_64::max() % bound;
  for (;;) {
    const std::uint64_t draw = generator();
    if (draw < limit) {
      return draw % bound;
    }
  }
}

}  // namespace

std::vector<std::size_t> roundOrder(std::size_t count, std::uint64_t seed, std::size_t row_index,
                                    std::uint32_t round) {
  std::vector<std::size_t> order(count);
  for (std::size_t index = 0; index < count; ++index) {
    order[index] = index;
  }
  std::mt19937_64 generator(mixed(mixed(mixed(seed) ^ row_index) ^ round));
  for (std::size_t index = count; index > 1; --index) {
    std::swap(order[index - 1], order[below(generator, index)]);
  }
  return order;
}

std::uint64_t freshOrderSeed() {
  const auto now = std::chrono::system_clock::now().time_since_epoch().count();
  return mixed(static_cast<std::uint64_t>(now) ^ (static_cast<std::uint64_t>(::getpid()) << 32U));
}

}  // namespace benchd::runner
