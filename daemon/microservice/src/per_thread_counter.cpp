#include "per_thread_counter.hpp"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

namespace benchd::microservice {

struct PerThreadCounter::Registry {
  std::mutex mutex;
  std::vector<const Cell*> live_cells;  ///< guarded by mutex
  std::int64_t retired_count = 0;       ///< guarded by mutex
};

PerThreadCounter::Slot::Slot(std::shared_ptr<Registry> registry)
    : registry_(std::move(registry)), cell_(std::make_unique<Cell>()) {
  std::lock_guard lock(registry_->mutex);
  registry_->live_cells.push_back(cell_.get());
}

PerThreadCounter::Slot::~Slot() {
  if (!cell_) {
    return;
  }
  std::lock_guard lock(registry_->mutex);
  registry_->retired_count += cell_->count.load(std::memory_order_relaxed);
  std::erase(registry_->live_cells, cell_.get());
}

PerThreadCounter::PerThreadCounter() : registry_(std::make_shared<Registry>()) {}

PerThreadCounter::Slot PerThreadCounter::newSlot() const {
  return Slot(registry_);
}

std::int64_t PerThreadCounter::total() const {
  std::lock_guard lock(registry_->mutex);
  std::int64_t total = registry_->retired_count;
  for (const Cell* cell : registry_->live_cells) {
    total += cell->count.load(std::memory_order_relaxed);
  }
  return total;
}

}  // namespace benchd::microservice
