#include <benchd/fiber_scheduler_asio/fiber_stack.hpp>

#include <unistd.h>

#include <new>
#include <sys/mman.h>

namespace benchd::fiber_scheduler_asio {
namespace {

void unmap(const boost::context::stack_context& stack) noexcept {
  ::munmap(static_cast<char*>(stack.sp) - stack.size, stack.size);
}

}  // namespace

FiberStackPool::FiberStackPool(std::size_t usable_bytes, std::size_t kept)
    : page_bytes_(static_cast<std::size_t>(::sysconf(_SC_PAGESIZE))), kept_(kept) {
  const std::size_t usable_pages = (usable_bytes + page_bytes_ - 1) / page_bytes_;
  mapping_bytes_ = (usable_pages + 1) * page_bytes_;
  free_.reserve(kept_);
}

FiberStackPool::~FiberStackPool() {
  for (const auto& stack : free_)
    unmap(stack);
}

boost::context::stack_context FiberStackPool::take() {
  if (!free_.empty()) {
    const boost::context::stack_context stack = free_.back();
    free_.pop_back();
    return stack;
  }
  void* base = ::mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (base == MAP_FAILED)
    throw std::bad_alloc();
  // The lowest page is the guard: the stack grows down towards it.
  if (::mprotect(base, page_bytes_, PROT_NONE) != 0) {
    ::munmap(base, mapping_bytes_);
    throw std::bad_alloc();
  }
  ++mapped_;
  boost::context::stack_context stack;
  stack.size = mapping_bytes_;
  stack.sp = static_cast<char*>(base) + mapping_bytes_;
  return stack;
}

void FiberStackPool::giveBack(boost::context::stack_context& stack) noexcept {
  if (free_.size() < kept_) {
    free_.push_back(stack);  // cannot throw: reserved to kept_ in the constructor
    return;
  }
  unmap(stack);
}

}  // namespace benchd::fiber_scheduler_asio
