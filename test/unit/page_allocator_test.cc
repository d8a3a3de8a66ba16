// SPDX-License-Identifier: GPL-2.0-or-later
#include "page_allocator.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <vector>

namespace fairway {
namespace {

// Whether [address, address + bytes) is mapped: mincore fails with ENOMEM
// on a range that holds an unmapped page.
bool IsMapped(const void* address, std::size_t bytes) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto start = reinterpret_cast<std::uintptr_t>(address) & ~(page - 1);
  std::vector<unsigned char> resident((bytes + page - 1) / page + 1);
  const int rc = mincore(reinterpret_cast<void*>(start), bytes, resident.data());
  return !(rc != 0 && errno == ENOMEM);
}

TEST(PageAllocator, LargeBlocksAreMappedAndUnmappedWhenReleased) {
  const std::size_t count = kMinMappedBytes / sizeof(uint64_t) * 4;
  PageVector<uint64_t> values;
  values.reserve(count);
  for (std::size_t i = 0; i < count; ++i) values.push_back(i * 3);
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const uint64_t* block = values.data();
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block) % page, 0u) << "a mapping starts a page";
  EXPECT_EQ(values[count - 1], (count - 1) * 3);
  ASSERT_TRUE(IsMapped(block, count * sizeof(uint64_t)));

  ReleaseStorage(&values);
  EXPECT_EQ(values.capacity(), 0u);
  EXPECT_FALSE(IsMapped(block, count * sizeof(uint64_t)));
}

TEST(PageAllocator, GrowingCopiesAcrossTheSizeBoundary) {
  // From malloc'd blocks to mapped ones and on: every element survives.
  PageVector<uint32_t> ids;
  const uint32_t count = static_cast<uint32_t>(kMinMappedBytes / sizeof(uint32_t) * 3 + 7);
  for (uint32_t id = 0; id < count; ++id) ids.push_back(id + 1);
  for (uint32_t id = 0; id < count; ++id) ASSERT_EQ(ids[id], id + 1);
  ids.resize(10);
  ids.shrink_to_fit();  // back below the boundary: a malloc'd block again
  EXPECT_EQ(ids.back(), 10u);
}

}  // namespace
}  // namespace fairway
