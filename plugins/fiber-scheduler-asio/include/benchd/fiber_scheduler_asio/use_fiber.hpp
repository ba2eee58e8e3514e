#pragma once
// A completion token that makes an Asio asynchronous operation look blocking to the calling
// fiber: `auto [error, bytes] = http::async_read(stream, buffer, parser, use_fiber);` suspends
// only that fiber until the operation completes and returns the completion's arguments (a
// single argument is returned as is, several as a std::tuple). Errors come back as values,
// never as exceptions.
//
// Contract: call it from a fiber whose thread runs the operation's io_context under
// AsioScheduler, so the completion handler runs on the same thread and resumes the fiber
// there. The operation's arguments must stay alive until it returns, as with any blocking call.

#include <boost/asio/async_result.hpp>
#include <boost/fiber/context.hpp>

#include <cstddef>
#include <new>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace benchd::fiber_scheduler_asio {

struct UseFiber {
  constexpr UseFiber() = default;
};

/// The token. An inline variable, so every translation unit shares one definition.
inline constexpr UseFiber use_fiber{};

namespace detail {

/// Memory for the operation a fiber waits on, on the fiber's own stack: the operation's state
/// (Asio's and Beast's, whatever they allocate through the handler's allocator) goes here
/// instead of to malloc. Asio frees an operation's memory before it calls the handler, so
/// one block at a time covers a chain of steps; a block that does not fit or a second one
/// at the same time comes from the heap. Fiber code starts the next operation long after
/// other completions freed theirs, so Asio's own per-thread cache (a few blocks per kind,
/// reused by size) mostly misses for fibers (malloc calls per request: docs/approaches.md).
class OperationMemory {
 public:
  OperationMemory() = default;
  OperationMemory(const OperationMemory&) = delete;
  OperationMemory& operator=(const OperationMemory&) = delete;

  void* allocate(std::size_t size, std::size_t align) {
    if (!in_use_ && size <= sizeof(storage_) && align <= alignof(std::max_align_t)) {
      in_use_ = true;
      return storage_;
    }
    return ::operator new(size, std::align_val_t(align));
  }
  void deallocate(void* block, std::size_t align) noexcept {
    if (block == static_cast<void*>(storage_)) {
      in_use_ = false;
      return;
    }
    ::operator delete(block, std::align_val_t(align));
  }

 private:
  alignas(std::max_align_t) unsigned char storage_[1024];
  bool in_use_ = false;
};

/// The allocator associated with ResumeFiber: hands out OperationMemory.
template <typename T>
class OperationAllocator {
 public:
  using value_type = T;

  explicit OperationAllocator(OperationMemory* memory) noexcept : memory_(memory) {}
  template <typename U>
  OperationAllocator(const OperationAllocator<U>& other) noexcept : memory_(other.memory()) {}

  T* allocate(std::size_t count) {
    return static_cast<T*>(memory_->allocate(sizeof(T) * count, alignof(T)));
  }
  void deallocate(T* block, std::size_t /*count*/) noexcept {
    memory_->deallocate(block, alignof(T));
  }
  [[nodiscard]] OperationMemory* memory() const noexcept { return memory_; }

  template <typename U>
  bool operator==(const OperationAllocator<U>& other) const noexcept {
    return memory_ == other.memory();
  }

 private:
  OperationMemory* memory_;
};

/// Lives on the waiting fiber's stack for the duration of one operation.
template <typename... Values>
struct FiberCompletion {
  boost::fibers::context* fiber = nullptr;
  bool done = false;
  std::optional<std::tuple<Values...>> values;
  OperationMemory memory;
};

/// The handler passed to the operation: stores the results and makes the fiber ready.
template <typename... Values>
struct ResumeFiber {
  FiberCompletion<Values...>* completion;

  using allocator_type = OperationAllocator<void>;
  // NOLINTNEXTLINE(readability-identifier-naming): the name Asio looks for
  [[nodiscard]] allocator_type get_allocator() const noexcept {
    return allocator_type(&completion->memory);
  }

  template <typename... Args>
  void operator()(Args&&... args) {
    completion->values.emplace(std::forward<Args>(args)...);
    completion->done = true;
    // The operation may complete inside its own initiation when the fiber runs inside
    // io_context::run (runFibers): a dispatch() then runs this handler at once, on the fiber.
    boost::fibers::context* const active = boost::fibers::context::active();
    if (completion->fiber != active)
      active->schedule(completion->fiber);
  }
};

template <typename... Values>
auto unwrapResults(std::tuple<Values...>&& values) {
  if constexpr (sizeof...(Values) == 1) {
    return std::get<0>(std::move(values));
  } else {
    return std::move(values);
  }
}

}  // namespace detail
}  // namespace benchd::fiber_scheduler_asio

template <typename... Args>
class boost::asio::async_result<benchd::fiber_scheduler_asio::UseFiber, void(Args...)> {
 public:
  template <typename Initiation, typename... InitArgs>
  static auto initiate(Initiation&& initiation, benchd::fiber_scheduler_asio::UseFiber /*token*/,
                       InitArgs&&... args) {
    using Completion = benchd::fiber_scheduler_asio::detail::FiberCompletion<std::decay_t<Args>...>;
    using Handler = benchd::fiber_scheduler_asio::detail::ResumeFiber<std::decay_t<Args>...>;
    Completion completion;
    completion.fiber = boost::fibers::context::active();
    std::forward<Initiation>(initiation)(Handler{&completion}, std::forward<InitArgs>(args)...);
    // Done already when the operation completed inside its initiation; a spurious resume must
    // not return early either.
    while (!completion.done)
      completion.fiber->suspend();
    return benchd::fiber_scheduler_asio::detail::unwrapResults(std::move(*completion.values));
  }
};
