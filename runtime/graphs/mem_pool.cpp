#include "graphs/mem_pool.h"

#include <map>
#include <mutex>

#include "core/allocator_override.h"
#include "core/error.h"
#include "graphs/cuda_graph_backend.h"
#include "graphs/host_memory_backend.h"
#include "graphs/interceptor.h"

namespace tg::graphs {

namespace {

// The host memory recordings may reserve in all; beyond it allocation during capture raises
// OutOfMemoryError like any device would.
constexpr size_t kHostCapacity = size_t{1} << 40;

void free_pool_memory(void* ptr) { cpu_graph_allocator().free(ptr); }

}  // namespace

alloc::CachingAllocator& cpu_graph_allocator() {
  // Leaked on purpose: tensors in static storage may release pool memory at exit.
  static HostMemoryBackend* backend = new HostMemoryBackend(kHostCapacity);
  static alloc::CachingAllocator* allocator = new alloc::CachingAllocator(*backend);
  return *allocator;
}

bool is_pool_memory(const DataPtr& ptr) { return ptr.deleter() == &free_pool_memory; }

MemPool::MemPool() : MemPool(Device(DeviceType::CPU)) {}

MemPool::MemPool(Device device) {
  TG_CHECK(device.is_cpu() || device.is_cuda(), "[graphs::MemPool] pools live on the CPU or a CUDA device, got ",
           device);
  alloc::CachingAllocator* allocator = &cpu_graph_allocator();
  if (device.is_cuda()) {
    device = detail::resolve_cuda_device(device, "graphs::MemPool");
    allocator = &detail::cuda_pool_allocator();
  } else {
    device = Device(DeviceType::CPU);
  }
  const int index = device.is_cuda() ? device.index() : 0;
  state_ = std::shared_ptr<State>(new State{allocator->create_pool(index), device, allocator});
}

MemPool::State::~State() { allocator->release_pool(device.is_cuda() ? device.index() : 0, id); }

size_t MemPool::reserved_bytes() const {
  return state_->allocator->pool_reserved_bytes(device().is_cuda() ? device().index() : 0, id());
}

namespace {

// Allocates on one capture stream of the graph allocator. Storages keep a pointer to their
// allocator (to grow), and may outlive the capture and the pool, so each stream's allocator
// lives for the whole process: one small object per pool ever made.
class PoolAllocator final : public Allocator {
 public:
  explicit PoolAllocator(alloc::StreamId stream) : stream_(stream) {}
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(DeviceType::CPU));
    void* ptr = cpu_graph_allocator().allocate(0, nbytes, stream_);
    detail::note_capture_allocation(ptr);
    return DataPtr(ptr, ptr, &free_pool_memory, Device(DeviceType::CPU));
  }

 private:
  alloc::StreamId stream_;
};

Allocator* pool_allocator(alloc::StreamId stream) {
  static std::mutex mutex;
  static auto* allocators = new std::map<alloc::StreamId, std::unique_ptr<PoolAllocator>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = (*allocators)[stream];
  if (!slot) slot = std::make_unique<PoolAllocator>(stream);
  return slot.get();
}

}  // namespace

MemPool::AllocateScope::AllocateScope(const MemPool& pool)
    : id_(pool.id()) {
  TG_INTERNAL_ASSERT(pool.device().is_cpu());
  cpu_graph_allocator().begin_allocate_to_pool(0, id_, id_.id);
  previous_ = set_thread_allocator_override(DeviceType::CPU, pool_allocator(id_.id));
}

MemPool::AllocateScope::~AllocateScope() {
  set_thread_allocator_override(DeviceType::CPU, previous_);
  cpu_graph_allocator().end_allocate_to_pool(0, id_.id);
}

}  // namespace tg::graphs
