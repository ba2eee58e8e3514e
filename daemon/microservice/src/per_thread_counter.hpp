#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace benchd::microservice {

/// An event count that threads increment without writing memory shared with other threads:
/// each thread counts in a Slot of its own, on its own cache line, and total() adds them up.
///
/// Thread-safety: newSlot() and total() may be called from any thread. A Slot is incremented
/// only by the thread that owns it. When a Slot is destroyed (e.g. at thread exit) its count
/// stays in the total; Slots may outlive the counter.
class PerThreadCounter {
  struct Registry;
  struct alignas(64) Cell {
    std::atomic<std::int64_t> count{0};
  };

 public:
  class Slot {
   public:
    explicit Slot(std::shared_ptr<Registry> registry);
    ~Slot();
    Slot(Slot&&) noexcept = default;
    Slot& operator=(Slot&&) = delete;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;

    /// Owner thread only. A plain load and store, no atomic read-modify-write.
    void increment() noexcept {
      cell_->count.store(cell_->count.load(std::memory_order_relaxed) + 1,
                         std::memory_order_relaxed);
    }

   private:
    std::shared_ptr<Registry> registry_;
    std::unique_ptr<Cell> cell_;
  };

  PerThreadCounter();

  /// A new slot counting towards this counter, for the calling thread to keep.
  [[nodiscard]] Slot newSlot() const;

  /// The sum of all slots, live and destroyed.
  [[nodiscard]] std::int64_t total() const;

 private:
  std::shared_ptr<Registry> registry_;
};

}  // namespace benchd::microservice
