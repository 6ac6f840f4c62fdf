#include "core/large_block_cache.h"

#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <sys/mman.h>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <list>
#include <mutex>
#include <utility>
#include <vector>

#include "core/address_sanitizer.h"
#include "core/error.h"
#include "core/small_block_cache.h"

namespace tg::large_block_cache {

// Note [Large block cache]
// Sizes are rounded up to classes, eight per octave: (2^(p-1), 2^p] is cut into eight equal
// steps, so a block is at most 12.5% larger than asked (pages past the request are never
// touched, so they cost address space, not memory). A release keeps the block under its class
// unless the kept bytes would pass the limit; then the blocks released longest ago are freed
// first. An allocation takes the class's most recently released block, the likeliest to be in
// the CPU cache. One process-wide list behind a mutex, unlike the small blocks' per-thread
// cache: these allocations come with kilobytes to megabytes of work each, and a block freed on
// an OpenMP worker is reused by the main thread. The class travels in the deleter (one
// function per class, as in small_block_cache), so a block carries no header and keeps its
// alignment. Blocks past kLastOctave (1 TiB) are never kept.

namespace {

constexpr bool kCacheEnabled = !kAddressSanitizer;

constexpr int kStepsLog2 = 3;  // eight classes per octave
constexpr int kStepsPerOctave = 1 << kStepsLog2;
constexpr int kFirstOctave = std::bit_width(small_block_cache::kMaxBytes);  // (4 KiB, 8 KiB]
constexpr int kLastOctave = 40;
constexpr size_t kClasses = static_cast<size_t>(kLastOctave - kFirstOctave + 1) * kStepsPerOctave;
constexpr size_t kLargestKept = size_t{1} << kLastOctave;
constexpr size_t kDefaultLimitMiB = 512;

constexpr size_t class_of(size_t nbytes) {
  const int octave = std::bit_width(nbytes - 1);  // 2^(octave-1) < nbytes <= 2^octave
  const size_t step = size_t{1} << (octave - 1 - kStepsLog2);
  const size_t steps = (nbytes - (size_t{1} << (octave - 1)) + step - 1) / step;  // 1..8
  return static_cast<size_t>(octave - kFirstOctave) * kStepsPerOctave + steps - 1;
}

constexpr size_t class_bytes(size_t c) {
  const int octave = static_cast<int>(c / kStepsPerOctave) + kFirstOctave;
  return (size_t{1} << (octave - 1)) + (c % kStepsPerOctave + 1) * (size_t{1} << (octave - 1 - kStepsLog2));
}

static_assert(class_of(small_block_cache::kMaxBytes + 1) == 0);
static_assert(class_bytes(0) == small_block_cache::kMaxBytes + small_block_cache::kMaxBytes / kStepsPerOctave);
static_assert(class_bytes(class_of(kLargestKept)) == kLargestKept);
static_assert(class_of(kLargestKept) == kClasses - 1);

struct Kept {
  void* block;
  size_t cls;
};

class Cache {
 public:
  Cache() : limit_(parse_limit(std::getenv("TG_CPU_BLOCK_CACHE_MB"))) {}

  void* take(size_t cls) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::deque<std::list<Kept>::iterator>& kept = by_class_[cls];
    if (kept.empty()) return nullptr;
    const std::list<Kept>::iterator entry = kept.back();
    kept.pop_back();
    void* block = entry->block;
    by_age_.erase(entry);
    bytes_ -= class_bytes(cls);
    return block;
  }

  void give(void* block, size_t cls) {
    std::vector<void*> evicted;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (class_bytes(cls) > limit_) {
        evicted.push_back(block);
      } else {
        evict_down_to(limit_ - class_bytes(cls), evicted);
        by_age_.push_back(Kept{block, cls});
        by_class_[cls].push_back(std::prev(by_age_.end()));
        bytes_ += class_bytes(cls);
      }
    }
    for (void* gone : evicted) std::free(gone);
  }

  void set_limit(size_t bytes) { shrink_to(bytes, /*new_limit=*/true); }
  void empty() { shrink_to(0, /*new_limit=*/false); }

  size_t bytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return bytes_;
  }
  size_t limit() {
    std::lock_guard<std::mutex> lock(mutex_);
    return limit_;
  }

 private:
  // Frees the oldest kept blocks until at most `target` bytes are kept (outside the lock),
  // making `target` the limit too when asked.
  void shrink_to(size_t target, bool new_limit) {
    std::vector<void*> evicted;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (new_limit) limit_ = target;
      evict_down_to(target, evicted);
    }
    for (void* gone : evicted) std::free(gone);
  }

  // Moves the oldest kept blocks to `evicted` until at most `target` bytes are kept.
  void evict_down_to(size_t target, std::vector<void*>& evicted) {
    while (bytes_ > target) {
      const Kept oldest = by_age_.front();
      by_class_[oldest.cls].pop_front();  // a class's oldest entry is the oldest overall of it
      by_age_.pop_front();
      bytes_ -= class_bytes(oldest.cls);
      evicted.push_back(oldest.block);
    }
  }

  std::mutex mutex_;
  std::list<Kept> by_age_;  // released longest ago first
  std::array<std::deque<std::list<Kept>::iterator>, kClasses> by_class_;  // each oldest first
  size_t bytes_ = 0;
  size_t limit_;
};

// Never destroyed: tensors held by static objects are released after main returns.
Cache& cache() {
  static Cache* instance = new Cache();
  return *instance;
}

template <size_t kClass>
void release(void* block) {
  cache().give(block, kClass);
}

template <size_t... C>
constexpr std::array<DeleterFn, kClasses> releasers(std::index_sequence<C...>) {
  return {&release<C>...};
}
constexpr std::array<DeleterFn, kClasses> kReleasers = releasers(std::make_index_sequence<kClasses>());

// Note [Huge pages for large blocks]: a block of 2 MiB or more starts on a 2 MiB boundary and
// asks for transparent huge pages (MADV_HUGEPAGE; the kernels' default mode is "madvise"), as
// PyTorch's CPU allocator does under THP_MEM_ALLOC_ENABLE: a kernel streaming through a 64 MiB
// tensor then misses the TLB 32 times instead of 16384, and faults its pages in 512 at a time.
constexpr size_t kHugePageBytes = size_t{2} << 20;

void* allocate_block(size_t request, size_t nbytes) {
  const bool huge = nbytes >= kHugePageBytes;
  void* block = nullptr;
  if (posix_memalign(&block, huge ? kHugePageBytes : kCpuAlignment, nbytes) != 0 || block == nullptr) {
    TG_THROW(OutOfMemoryError, "[cpu_allocator] could not allocate ", request, " bytes");
  }
#if defined(MADV_HUGEPAGE)
  if (huge) (void)madvise(block, nbytes / kHugePageBytes * kHugePageBytes, MADV_HUGEPAGE);  // a hint: failure is fine
#endif
  return block;
}

// Note [Block colours]: blocks of 64 KiB and more come from mmap (glibc) or start on a 2 MiB
// boundary (Note [Huge pages for large blocks]), so every such block would start at the same
// offset within a 4 KiB page. Then a kernel that reads a[i] and writes b[i] has every load at
// the same page offset as a store just issued, which the CPU takes for a possible dependency
// (4K aliasing), and both rows compete for the same L1 sets. cumsum over 4096 x 1024 floats,
// which scans 8 rows side by side, took 4.7 ms into a cached block at the input's page offset
// against 2.6 ms at another. So such a block's data starts at one of 64 offsets (multiples of
// 64 bytes below 4 KiB), chosen from its address, and the block is 4 KiB longer. A kept block
// keeps its offset. Not under AddressSanitizer, whose blocks are exactly as large as asked.
constexpr size_t kColouredBytes = size_t{64} << 10;
constexpr size_t kColourSpan = 4096;

size_t colour_offset(const void* block) {
  const auto page = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(block) >> 12);
  const uint64_t mixed = page * 0x9E3779B97F4A7C15ull;  // Fibonacci hashing: the top bits vary
  return static_cast<size_t>(mixed >> 58) * kCpuAlignment;  // 0, 64, ..., 4032
}

// The block of class `cls` (kept or new) as a DataPtr whose data starts at its colour.
DataPtr coloured(void* block, size_t cls) {
  const size_t offset = class_bytes(cls) >= kColouredBytes ? colour_offset(block) : 0;
  return DataPtr(static_cast<char*>(block) + offset, block, kReleasers[cls], Device(DeviceType::CPU));
}

size_t block_bytes(size_t cls) { return class_bytes(cls) + (class_bytes(cls) >= kColouredBytes ? kColourSpan : 0); }

}  // namespace

size_t parse_limit(const char* text) {
  if (text == nullptr) return kDefaultLimitMiB << 20;
  size_t mib = 0;
  const char* end = text + std::strlen(text);
  const auto [stop, status] = std::from_chars(text, end, mib);
  TG_CHECK_VALUE(status == std::errc() && stop == end && *text != '\0' && mib <= (kLargestKept >> 20),
                 "[cpu_allocator] TG_CPU_BLOCK_CACHE_MB must be a whole number of MiB from 0 to ",
                 kLargestKept >> 20, ", got '", text, "'");
  return mib << 20;
}

DataPtr allocate(size_t nbytes) {
  TG_CHECK(nbytes > small_block_cache::kMaxBytes, "[large_block_cache] blocks of at most ",
           small_block_cache::kMaxBytes, " bytes belong to small_block_cache, got ", nbytes);
  if (!kCacheEnabled || nbytes > kLargestKept) {
    void* block = allocate_block(nbytes, nbytes);
    return DataPtr(block, block, &std::free, Device(DeviceType::CPU));
  }
  const size_t cls = class_of(nbytes);
  void* block = cache().take(cls);
  if (block == nullptr) block = allocate_block(nbytes, block_bytes(cls));
  return coloured(block, cls);
}

void empty_cache() { cache().empty(); }

size_t cached_bytes() { return cache().bytes(); }
size_t limit_bytes() { return cache().limit(); }
void set_limit_bytes(size_t bytes) { cache().set_limit(bytes); }
bool caching_enabled() { return kCacheEnabled; }

}  // namespace tg::large_block_cache
