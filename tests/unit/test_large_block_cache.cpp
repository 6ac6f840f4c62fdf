// Tests of the process-wide cache of large freed CPU blocks (core/large_block_cache.h) behind
// the CPU allocator: alignment and size classes, reuse of the most recent block of a class,
// the byte limit and its eviction order, empty_cache, blocks that cross threads, and the
// errors (a small size, an impossible size, a malformed TG_CPU_BLOCK_CACHE_MB). Under
// AddressSanitizer nothing is kept, and the reuse checks say so as a skip.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/allocator.h"
#include "core/error.h"
#include "core/large_block_cache.h"
#include "core/small_block_cache.h"

namespace cache = tg::large_block_cache;

namespace {

constexpr size_t kMiB = size_t{1} << 20;

// Skips the calling test case, with the reason, where blocks are not kept.
bool caching_or_skip() {
  if (!cache::caching_enabled()) MESSAGE("skipped: blocks are not kept under AddressSanitizer");
  return cache::caching_enabled();
}

// Restores the limit and empties the cache when a test case ends.
struct CacheScope {
  size_t limit = cache::limit_bytes();
  CacheScope() { cache::empty_cache(); }
  ~CacheScope() {
    cache::set_limit_bytes(limit);
    cache::empty_cache();
  }
};

}  // namespace

TEST_CASE("large blocks are 64-byte aligned and hold the requested bytes") {
  CacheScope scope;
  for (size_t n : {tg::small_block_cache::kMaxBytes + 1, size_t{5000}, size_t{8192}, size_t{8193}, size_t{1234567},
                   3 * kMiB + 1}) {
    tg::DataPtr block = cache::allocate(n);
    REQUIRE(block.get() != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(block.get()) % tg::kCpuAlignment == 0);
    std::memset(block.get(), 0xab, n);  // the whole request is writable (ASan checks it)
  }
}

TEST_CASE("the CPU allocator sends sizes past the small blocks to the large-block cache") {
  CacheScope scope;
  if (!caching_or_skip()) return;
  void* first = nullptr;
  {
    tg::DataPtr block = tg::cpu_allocator()->allocate(100000);
    first = block.get();
  }
  CHECK(cache::cached_bytes() >= 100000);
  tg::DataPtr again = tg::cpu_allocator()->allocate(99000);  // the same class, (98304, 106496]
  CHECK(again.get() == first);
  CHECK(cache::cached_bytes() == 0);
}

TEST_CASE("a freed block is reused only within its class, most recent first") {
  CacheScope scope;
  if (!caching_or_skip()) return;
  void* older = nullptr;
  void* newer = nullptr;
  {
    tg::DataPtr a = cache::allocate(kMiB), b = cache::allocate(kMiB);
    older = a.get();
    newer = b.get();
    a = tg::DataPtr();  // released first
  }
  CHECK(cache::cached_bytes() == 2 * kMiB);
  tg::DataPtr other_class = cache::allocate(kMiB + 1);  // (1 MiB, 1.125 MiB]
  CHECK(other_class.get() != older);
  CHECK(other_class.get() != newer);
  tg::DataPtr first = cache::allocate(kMiB - 1000), second = cache::allocate(kMiB);
  CHECK(first.get() == newer);
  CHECK(second.get() == older);
}

TEST_CASE("the limit bounds the kept bytes, the oldest blocks going first") {
  CacheScope scope;
  if (!caching_or_skip()) return;
  cache::set_limit_bytes(3 * kMiB);
  std::vector<tg::DataPtr> blocks;
  std::vector<void*> addresses;
  for (int i = 0; i < 4; ++i) {
    blocks.push_back(cache::allocate(kMiB));
    addresses.push_back(blocks.back().get());
  }
  blocks.clear();  // released in order 0..3: block 0 is freed to stay within 3 MiB
  CHECK(cache::cached_bytes() == 3 * kMiB);
  for (int i = 3; i >= 1; --i) {
    tg::DataPtr block = cache::allocate(kMiB);
    CHECK(block.get() == addresses[static_cast<size_t>(i)]);
    blocks.push_back(std::move(block));
  }
  CHECK(cache::cached_bytes() == 0);
  // A block larger than the limit is never kept.
  { tg::DataPtr big = cache::allocate(4 * kMiB); }
  CHECK(cache::cached_bytes() == 0);
  // Lowering the limit frees down to it; 0 keeps nothing.
  blocks.clear();
  CHECK(cache::cached_bytes() == 3 * kMiB);
  cache::set_limit_bytes(kMiB);
  CHECK(cache::cached_bytes() == kMiB);
  cache::set_limit_bytes(0);
  CHECK(cache::cached_bytes() == 0);
  { tg::DataPtr block = cache::allocate(kMiB); }
  CHECK(cache::cached_bytes() == 0);
}

TEST_CASE("empty_cache frees every kept block") {
  CacheScope scope;
  if (!caching_or_skip()) return;
  { tg::DataPtr a = cache::allocate(10000), b = cache::allocate(2 * kMiB); }
  CHECK(cache::cached_bytes() > 2 * kMiB);
  cache::empty_cache();
  CHECK(cache::cached_bytes() == 0);
}

TEST_CASE("a block freed on another thread is reused on this one") {
  CacheScope scope;
  tg::DataPtr block = cache::allocate(300000);
  void* address = block.get();
  std::thread([owned = std::move(block)]() mutable { owned = tg::DataPtr(); }).join();
  tg::DataPtr again = cache::allocate(300000);
  std::memset(again.get(), 1, 300000);
  if (caching_or_skip()) CHECK(again.get() == address);
}

TEST_CASE("large-block cache errors") {
  CHECK_THROWS_AS(cache::allocate(100), tg::Error);
  CHECK_THROWS_AS(cache::allocate(size_t{1} << 62), tg::OutOfMemoryError);
  CHECK(cache::parse_limit(nullptr) == 512 * kMiB);
  CHECK(cache::parse_limit("0") == 0);
  CHECK(cache::parse_limit("64") == 64 * kMiB);
  for (const char* bad : {"", "abc", "12x", "-1", "1.5", "99999999999999999999"}) {
    CAPTURE(bad);
    try {
      cache::parse_limit(bad);
      FAIL("no error for a malformed limit");
    } catch (const tg::ValueError& e) {
      CHECK(std::string(e.what()).find("TG_CPU_BLOCK_CACHE_MB must be a whole number of MiB") != std::string::npos);
      CHECK(std::string(e.what()).find(std::string("got '") + bad + "'") != std::string::npos);
    }
  }
}

namespace {

// The VmFlags line of the mapping of /proc/self/smaps that holds `address` ("" if none).
std::string vm_flags_of(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2 && line.find('-') < line.find(' ')) {
      inside = at >= begin && at < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

}  // namespace

// Note [Huge pages for large blocks]: blocks of 2 MiB and more start on a 2 MiB boundary (their
// data a colour further, Note [Block colours]) and their mapping is marked for transparent
// huge pages ("hg" in /proc/self/smaps).
TEST_CASE("blocks of 2 MiB and more are 2 MiB aligned and marked for huge pages") {
  CacheScope scope;
  for (size_t n : {size_t{2} << 20, (size_t{8} << 20) + 12345}) {
    CAPTURE(n);
    tg::DataPtr block = cache::allocate(n);
    CHECK(reinterpret_cast<std::uintptr_t>(block.context()) % (size_t{2} << 20) == 0);
    CHECK(reinterpret_cast<std::uintptr_t>(block.get()) - reinterpret_cast<std::uintptr_t>(block.context()) < 4096);
    std::memset(block.get(), 0, n);
    std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string modes;
    std::getline(mode, modes);
    if (modes.empty() || modes.find("[never]") != std::string::npos) {
      MESSAGE("skipped the huge-page mark: transparent huge pages are off or absent (", modes, ")");
      continue;
    }
    CHECK(vm_flags_of(block.get()).find(" hg") != std::string::npos);
  }
}

// Note [Block colours]: blocks of 64 KiB and more start at different offsets within a page,
// so that kernels reading one tensor and writing another do not meet 4K aliasing; smaller
// blocks are not shifted. Under AddressSanitizer blocks come straight from its allocator,
// exactly as large as asked (so overflows are caught), and are not coloured.
TEST_CASE("large blocks start at different page offsets") {
  CacheScope scope;
  for (size_t n : {size_t{64} << 10, kMiB, size_t{3} << 20}) {
    CAPTURE(n);
    std::vector<tg::DataPtr> blocks;
    std::vector<size_t> offsets;
    for (int i = 0; i < 8; ++i) {
      blocks.push_back(cache::allocate(n));
      const auto data = reinterpret_cast<std::uintptr_t>(blocks.back().get());
      CHECK(data % tg::kCpuAlignment == 0);
      CHECK(data - reinterpret_cast<std::uintptr_t>(blocks.back().context()) < 4096);
      std::memset(blocks.back().get(), 0x5a, n);  // the whole request is writable past the offset
      offsets.push_back(data % 4096);
    }
    std::sort(offsets.begin(), offsets.end());
    if (caching_or_skip()) CHECK(std::unique(offsets.begin(), offsets.end()) - offsets.begin() > 1);
  }
  tg::DataPtr small = cache::allocate(8192);
  CHECK(small.get() == small.context());
}
