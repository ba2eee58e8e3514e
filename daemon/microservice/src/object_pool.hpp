#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace benchd::microservice {

/// A bounded pool of expensive objects (database connections), created on demand by a
/// factory and kept until the pool is destroyed.
///
/// Thread-safety: acquire() may be called from any thread. A Lease gives its holder exclusive
/// use of one object until the lease is destroyed; the pool must outlive its leases.
template <typename T>
class ObjectPool {
 public:
  using Factory = std::function<std::unique_ptr<T>()>;

  class Lease {
   public:
    Lease(ObjectPool& pool, std::unique_ptr<T> object) : pool_(&pool), object_(std::move(object)) {}
    ~Lease() {
      if (object_) {
        pool_->release(std::move(object_));
      }
    }
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

    [[nodiscard]] T& operator*() const { return *object_; }
    [[nodiscard]] T* operator->() const { return object_.get(); }

   private:
    ObjectPool* pool_;
    std::unique_ptr<T> object_;
  };

  /// Takes ownership of `first` (an object the caller already made, e.g. the one that created
  /// the schema); creates up to `max_size` objects in all.
  ObjectPool(std::size_t max_size, Factory factory, std::unique_ptr<T> first)
      : max_size_(max_size), factory_(std::move(factory)) {
    idle_.push_back(std::move(first));
  }

  /// An idle object, a new one while fewer than max_size exist, or else the next one released.
  /// Rethrows the factory's exception.
  [[nodiscard]] Lease acquire() {
    std::unique_lock lock(mutex_);
    released_.wait(lock, [this] { return !idle_.empty() || created_ < max_size_; });
    if (!idle_.empty()) {
      std::unique_ptr<T> object = std::move(idle_.back());
      idle_.pop_back();
      return Lease(*this, std::move(object));
    }
    ++created_;
    lock.unlock();
    try {
      return Lease(*this, factory_());
    } catch (...) {
      lock.lock();
      --created_;
      released_.notify_one();
      throw;
    }
  }

 private:
  void release(std::unique_ptr<T> object) {
    {
      std::lock_guard lock(mutex_);
      idle_.push_back(std::move(object));
    }
    released_.notify_one();
  }

  const std::size_t max_size_;
  const Factory factory_;
  std::mutex mutex_;
  std::condition_variable released_;
  std::vector<std::unique_ptr<T>> idle_;
  std::size_t created_ = 1;  ///< guarded by mutex_; the constructor makes the first one
};

}  // namespace benchd::microservice
