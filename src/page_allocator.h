// SPDX-License-Identifier: GPL-2.0-or-later
// An allocator for per-pass arrays of tens of thousands of jobs that must
// give their memory back to the system when freed. malloc keeps freed
// blocks of this size in the thread's arena (its mmap threshold rises to
// the largest block freed), where they stay resident; between two priority
// passes that would be the size of a whole pass table per job. Blocks of
// kMinMappedBytes or more are therefore mapped on their own, populated in
// one call (cheaper than a page fault per page while the pass fills them),
// and unmapped when freed. Smaller blocks go through operator new.
#ifndef FAIRWAY_PAGE_ALLOCATOR_H_
#define FAIRWAY_PAGE_ALLOCATOR_H_

#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <vector>

namespace fairway {

// Below this a block goes to malloc: mapping costs a system call and at
// least a page.
constexpr std::size_t kMinMappedBytes = 64 * 1024;

template <typename T>
class PageAllocator {
 public:
  using value_type = T;

  PageAllocator() noexcept = default;
  template <typename U>
  PageAllocator(const PageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kMinMappedBytes) return static_cast<T*>(::operator new(bytes));
    void* block = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (block == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(block);
  }

  // n is the count given to allocate (the standard requires it), so the
  // same size rule tells how the block was obtained.
  void deallocate(T* block, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kMinMappedBytes) {
      ::operator delete(block);
    } else {
      munmap(block, bytes);
    }
  }
};

template <typename T, typename U>
bool operator==(const PageAllocator<T>&, const PageAllocator<U>&) noexcept {
  return true;
}
template <typename T, typename U>
bool operator!=(const PageAllocator<T>&, const PageAllocator<U>&) noexcept {
  return false;
}

template <typename T>
using PageVector = std::vector<T, PageAllocator<T>>;

// Empties v and gives its storage back (clear() keeps the capacity).
template <typename Vector>
void ReleaseStorage(Vector* v) {
  Vector().swap(*v);
}

// For arrays kept from pass to pass: gives v's storage back when it holds
// more than twice n elements (the queue shrank), so that a queue that was
// once large does not pin its peak size forever. v's contents are lost
// when it does: call it on an empty v.
template <typename Vector>
void ReleaseIfOversized(Vector* v, std::size_t n) {
  constexpr std::size_t kSlackElements = 1024;
  if (v->capacity() > 2 * n + kSlackElements) ReleaseStorage(v);
}

// Room for n elements in an empty v kept from pass to pass, reusing its
// storage when that fits (see ReleaseIfOversized).
template <typename Vector>
void ReserveReusing(Vector* v, std::size_t n) {
  ReleaseIfOversized(v, n);
  v->reserve(n);
}

}  // namespace fairway

#endif  // FAIRWAY_PAGE_ALLOCATOR_H_
