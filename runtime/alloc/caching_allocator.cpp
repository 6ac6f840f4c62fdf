#include "alloc/caching_allocator.h"

#include "alloc/device_caching_allocator.h"
#include "alloc/size_classes.h"
#include "core/error.h"

namespace tg::alloc {

CachingAllocator::CachingAllocator(RawMemoryBackend& backend, CachingAllocatorOptions options) {
  const double threshold = options.garbage_collection_threshold;
  TG_CHECK_VALUE(threshold >= 0.0 && threshold <= 1.0,
                 "[CachingAllocator] garbage_collection_threshold must be in [0, 1] (0 turns it off), got ",
                 threshold);
  TG_CHECK_VALUE(options.max_split_size > kSmallSize,
                 "[CachingAllocator] max_split_size must be larger than ", kSmallSize,
                 " bytes (the small pool's block limit), got ", options.max_split_size);
  const int count = backend.device_count();
  devices_.reserve(static_cast<size_t>(count));
  for (int device = 0; device < count; ++device) {
    devices_.push_back(std::make_unique<DeviceCachingAllocator>(backend, device, options));
  }
}

CachingAllocator::~CachingAllocator() = default;

void* CachingAllocator::allocate(int device, size_t nbytes, StreamId stream) {
  DeviceCachingAllocator& allocator = device_allocator(device, "allocate");
  if (nbytes == 0) return nullptr;
  void* ptr = allocator.allocate(nbytes, stream);
  std::lock_guard<std::mutex> lock(owners_mutex_);
  owners_.emplace(ptr, device);
  return ptr;
}

void CachingAllocator::free(void* ptr) {
  if (ptr == nullptr) return;
  const int device = owner_of(ptr, "free", /*forget=*/true);
  devices_[static_cast<size_t>(device)]->free(ptr);
}

void CachingAllocator::record_stream(void* ptr, StreamId stream) {
  const int device = owner_of(ptr, "record_stream", /*forget=*/false);
  devices_[static_cast<size_t>(device)]->record_stream(ptr, stream);
}

void CachingAllocator::empty_cache() {
  for (auto& allocator : devices_) allocator->empty_cache();
}

AllocatorStats CachingAllocator::stats(int device) const { return device_allocator(device, "stats").stats(); }

void CachingAllocator::reset_peak_stats(int device) { device_allocator(device, "reset_peak_stats").reset_peak_stats(); }

MemorySnapshot CachingAllocator::snapshot() const {
  MemorySnapshot snapshot;
  for (const auto& allocator : devices_) allocator->append_snapshot(snapshot.segments);
  return snapshot;
}

MempoolId CachingAllocator::create_pool(int device) { return device_allocator(device, "create_pool").create_pool(); }

void CachingAllocator::retain_pool(int device, MempoolId pool) {
  device_allocator(device, "retain_pool").retain_pool(pool);
}

void CachingAllocator::release_pool(int device, MempoolId pool) {
  device_allocator(device, "release_pool").release_pool(pool);
}

void CachingAllocator::begin_allocate_to_pool(int device, MempoolId pool, StreamId stream) {
  device_allocator(device, "begin_allocate_to_pool").begin_allocate_to_pool(pool, stream);
}

void CachingAllocator::end_allocate_to_pool(int device, StreamId stream) {
  device_allocator(device, "end_allocate_to_pool").end_allocate_to_pool(stream);
}

PoolState CachingAllocator::checkpoint_pool(int device, MempoolId pool) {
  return device_allocator(device, "checkpoint_pool").checkpoint_pool(pool);
}

PoolRestoreResult CachingAllocator::restore_pool(const PoolState& state) {
  PoolRestoreResult result = device_allocator(state.device, "restore_pool").restore_pool(state);
  std::lock_guard<std::mutex> lock(owners_mutex_);
  for (void* ptr : result.freed) owners_.erase(ptr);
  for (void* ptr : result.allocated) owners_[ptr] = state.device;
  return result;
}

size_t CachingAllocator::pool_reserved_bytes(int device, MempoolId pool) const {
  return device_allocator(device, "pool_reserved_bytes").pool_reserved_bytes(pool);
}

void CachingAllocator::set_memory_fraction(int device, double fraction) {
  device_allocator(device, "set_memory_fraction").set_memory_fraction(fraction);
}

DeviceCachingAllocator& CachingAllocator::device_allocator(int device, const char* op) const {
  TG_CHECK_INDEX(device >= 0 && device < device_count(), "[CachingAllocator::", op, "] device ", device,
                 " is out of range: the backend has ", device_count(), " device(s)");
  return *devices_[static_cast<size_t>(device)];
}

int CachingAllocator::owner_of(void* ptr, const char* op, bool forget) {
  std::lock_guard<std::mutex> lock(owners_mutex_);
  auto it = owners_.find(ptr);
  TG_CHECK(it != owners_.end(), "[CachingAllocator::", op, "] pointer ", ptr,
           " is not a live allocation of this allocator (it was never allocated here, or was already freed)");
  const int device = it->second;
  if (forget) owners_.erase(it);
  return device;
}

}  // namespace tg::alloc
