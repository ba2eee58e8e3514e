#include "allocation_counter.hpp"

#include <cstdlib>
#include <new>

// Replacing the global allocation functions is allowed in a program; it affects only this test
// executable. They live in their own file so the compiler never inlines them into callers
// (which makes g++ 12 report a false new/free mismatch).

namespace {
thread_local std::uint64_t allocation_count = 0;
}  // namespace

void* operator new(std::size_t size) {
  ++allocation_count;
  if (void* memory = std::malloc(size == 0 ? 1 : size)) {
    return memory;
  }
  throw std::bad_alloc();
}

void operator delete(void* memory) noexcept {
  std::free(memory);
}

void operator delete(void* memory, std::size_t /*size*/) noexcept {
  std::free(memory);
}

namespace benchd::measurement::testing {

std::uint64_t allocationsOnThisThread() noexcept {
  return allocation_count;
}

}  // namespace benchd::measurement::testing
