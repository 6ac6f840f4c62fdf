#include "cuda/cuda_stream.h"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "cuda/cuda_check.h"

namespace tg::cuda {

namespace {

// One device's pool. Ids 1..kStreamsPerPool are low priority, the next kStreamsPerPool high.
struct DevicePool {
  std::once_flag created;
  std::array<cudaStream_t, 2 * kStreamsPerPool> streams{};
  std::atomic<uint32_t> next_low{0};
  std::atomic<uint32_t> next_high{0};
};

// Sized once, at the first stream request, to the number of devices. Streams are never
// destroyed: they may be in use until the process ends (as in PyTorch).
DevicePool& pool_of(DeviceIndex device) {
  static std::unique_ptr<DevicePool[]> pools(new DevicePool[static_cast<size_t>(device_count_or_zero())]);
  DevicePool& pool = pools[static_cast<size_t>(device)];
  std::call_once(pool.created, [&pool, device] {
    int least = 0, greatest = 0;  // numerically: lower is higher priority
    TG_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    const DeviceIndex previous = exchange_device(device);
    for (int i = 0; i < 2 * kStreamsPerPool; ++i) {
      const int priority = i < kStreamsPerPool ? least : greatest;
      TG_CUDA_CHECK(cudaStreamCreateWithPriority(&pool.streams[static_cast<size_t>(i)], cudaStreamNonBlocking, priority));
    }
    exchange_device(previous);
  });
  return pool;
}

// This thread's current stream id per device; 0 (the default stream) until set.
std::vector<Stream::Id>& current_ids() {
  thread_local std::vector<Stream::Id> ids(static_cast<size_t>(device_count_or_zero()), 0);
  return ids;
}

}  // namespace

CUDAStream::CUDAStream(Stream stream) : stream_(stream) {
  TG_CHECK(stream.device().is_cuda() && stream.device_index() >= 0 && stream.device_index() < device_count_or_zero(),
           "[CUDAStream] expected a stream of a CUDA device of this machine, got ", stream);
  TG_CHECK(stream.id() >= 0 && stream.id() <= 2 * kStreamsPerPool, "[CUDAStream] no CUDA stream has id ", stream.id());
}

cudaStream_t CUDAStream::stream() const {
  if (id() == 0) return nullptr;  // the legacy default stream
  return pool_of(device_index()).streams[static_cast<size_t>(id() - 1)];
}

bool CUDAStream::query() const {
  const cudaError_t status = cudaStreamQuery(stream());
  if (status == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  TG_CUDA_CHECK(status);
  return true;
}

void CUDAStream::synchronize() const {
  const DeviceIndex previous = exchange_device(device_index());
  const cudaError_t status = cudaStreamSynchronize(stream());
  exchange_device(previous);
  TG_CUDA_CHECK(status);
}

std::ostream& operator<<(std::ostream& out, const CUDAStream& stream) { return out << stream.unwrap(); }

CUDAStream getDefaultCUDAStream(DeviceIndex device) {
  return CUDAStream(Stream(Device(kCUDA, resolve_device(device, "getDefaultCUDAStream")), 0));
}

CUDAStream getCurrentCUDAStream(DeviceIndex device) {
  const DeviceIndex d = resolve_device(device, "getCurrentCUDAStream");
  return CUDAStream(Stream(Device(kCUDA, d), current_ids()[static_cast<size_t>(d)]));
}

CUDAStream getStreamFromPool(bool isHighPriority, DeviceIndex device) {
  const DeviceIndex d = resolve_device(device, "getStreamFromPool");
  DevicePool& pool = pool_of(d);
  std::atomic<uint32_t>& next = isHighPriority ? pool.next_high : pool.next_low;
  const Stream::Id index = next.fetch_add(1, std::memory_order_relaxed) % kStreamsPerPool;
  return CUDAStream(Stream(Device(kCUDA, d), 1 + index + (isHighPriority ? kStreamsPerPool : 0)));
}

void setCurrentCUDAStream(CUDAStream stream) {
  current_ids()[static_cast<size_t>(stream.device_index())] = stream.id();
}

CUDAStreamGuard::CUDAStreamGuard(CUDAStream stream)
    : original_device_(exchange_device(stream.device_index())),
      original_stream_(getCurrentCUDAStream(stream.device_index())),
      current_stream_(stream) {
  setCurrentCUDAStream(stream);
}

CUDAStreamGuard::~CUDAStreamGuard() {
  setCurrentCUDAStream(original_stream_);
  set_device(original_device_);
}

}  // namespace tg::cuda
