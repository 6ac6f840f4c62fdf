// Tests of the per-thread cache of small CPU blocks (core/small_block_cache.h) behind the CPU
// allocator: alignment and size classes, reuse on one thread, the bound per class, and blocks
// that cross threads, including threads that have ended.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "core/allocator.h"
#include "core/small_block_cache.h"

namespace cache = tg::small_block_cache;

TEST_CASE("small blocks are 64-byte aligned and hold the requested bytes") {
  for (size_t n : {size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{1000}, size_t{4096}}) {
    tg::DataPtr block = cache::allocate(n);
    REQUIRE(block.get() != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(block.get()) % tg::kCpuAlignment == 0);
    std::memset(block.get(), 0xab, n);  // the whole request is writable (ASan checks it)
  }
}

TEST_CASE("the CPU allocator serves small sizes from the cache and large ones directly") {
  tg::Allocator* cpu = tg::cpu_allocator();
  void* small = nullptr;
  {
    tg::DataPtr block = cpu->allocate(100);
    small = block.get();
  }
  tg::DataPtr again = cpu->allocate(128);  // the same size class, 65..128 bytes
  if (cache::caching_enabled()) CHECK(again.get() == small);
  tg::DataPtr large = cpu->allocate(cache::kMaxBytes + 1);
  CHECK(reinterpret_cast<std::uintptr_t>(large.get()) % tg::kCpuAlignment == 0);
  CHECK(cpu->allocate(0).get() == nullptr);
}

TEST_CASE("a freed block is reused only within its size class") {
  void* first = nullptr;
  {
    tg::DataPtr block = cache::allocate(64);
    first = block.get();
  }
  tg::DataPtr other_class = cache::allocate(256);
  CHECK(other_class.get() != first);
  tg::DataPtr same_class = cache::allocate(10);
  if (cache::caching_enabled()) CHECK(same_class.get() == first);
}

TEST_CASE("releasing more blocks than a class keeps frees the rest, and all stay usable") {
  std::vector<tg::DataPtr> blocks;
  for (int i = 0; i < 100; ++i) blocks.push_back(cache::allocate(512));
  blocks.clear();  // 100 releases: up to the class bound are kept, the others freed
  std::vector<tg::DataPtr> again;
  for (int i = 0; i < 100; ++i) {
    again.push_back(cache::allocate(512));
    std::memset(again.back().get(), i, 512);
  }
  for (size_t i = 0; i < again.size(); ++i) {
    for (size_t j = i + 1; j < again.size(); ++j) CHECK(again[i].get() != again[j].get());
  }
}

TEST_CASE("blocks cross threads: freed by a thread that then ends, or after their thread ended") {
  // Allocated here, released on a thread that exits (its cache is emptied at exit).
  tg::DataPtr here = cache::allocate(200);
  std::thread([block = std::move(here)]() mutable { block = tg::DataPtr(); }).join();
  // Allocated and cached on a thread that has ended, released here.
  tg::DataPtr from_thread;
  std::thread([&] {
    tg::DataPtr warm = cache::allocate(300);  // start this thread's cache
    warm = tg::DataPtr();
    from_thread = cache::allocate(300);
  }).join();
  REQUIRE(from_thread.get() != nullptr);
  std::memset(from_thread.get(), 1, 300);
  void* released = from_thread.get();
  std::vector<tg::DataPtr> drained;  // empties this thread's 512-byte class (earlier tests filled it)
  for (int i = 0; i < 64; ++i) drained.push_back(cache::allocate(512));
  from_thread = tg::DataPtr();  // joins this thread's cache
  tg::DataPtr next = cache::allocate(300);
  if (cache::caching_enabled()) CHECK(next.get() == released);
}
