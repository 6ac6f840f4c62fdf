// CUDA streams (c10::cuda::CUDAStream). Each device has its default stream (id 0, CUDA's legacy
// default stream) and a pool of streams made on first use: kStreamsPerPool low-priority streams
// (ids 1..32) and as many high-priority ones (ids 33..64), handed out round-robin by
// getStreamFromPool and never destroyed. Pool streams are non-blocking: they do not
// synchronise implicitly with the default stream.
// Each thread has a current stream per device, the default stream until set; kernels and
// copies run on the current stream of their device, and the caching allocator files memory
// under it (see Note [Streams and the allocator] in docs/cuda.md).
#pragma once

#include <cstdint>
#include <ostream>

#include <cuda_runtime_api.h>

#include "core/stream.h"
#include "cuda/cuda_device.h"

namespace tg::cuda {

inline constexpr int kStreamsPerPool = 32;

class CUDAStream {
 public:
  using Id = Stream::Id;

  // Throws tg::Error unless `stream` is a CUDA stream with a valid id.
  explicit CUDAStream(Stream stream);

  cudaStream_t stream() const;
  operator cudaStream_t() const { return stream(); }  // NOLINT: as c10's CUDAStream
  Device device() const { return stream_.device(); }
  DeviceIndex device_index() const { return stream_.device_index(); }
  Id id() const { return stream_.id(); }
  bool is_high_priority() const { return id() > kStreamsPerPool; }
  Stream unwrap() const { return stream_; }
  operator Stream() const { return stream_; }  // NOLINT

  // Whether all work submitted so far is done (cudaStreamQuery); never blocks.
  bool query() const;
  // Blocks the calling thread until all work submitted so far is done.
  void synchronize() const;

  bool operator==(const CUDAStream& other) const noexcept { return stream_ == other.stream_; }
  bool operator!=(const CUDAStream& other) const noexcept { return !(*this == other); }

 private:
  Stream stream_;
};

std::ostream& operator<<(std::ostream& out, const CUDAStream& stream);

// LibTorch's names. `device` -1 is the current device.
CUDAStream getDefaultCUDAStream(DeviceIndex device = -1);
CUDAStream getCurrentCUDAStream(DeviceIndex device = -1);
CUDAStream getStreamFromPool(bool isHighPriority = false, DeviceIndex device = -1);
// Makes `stream` this thread's current stream on its device (the current device is unchanged).
void setCurrentCUDAStream(CUDAStream stream);

// Makes a stream, and its device, current until the end of the scope (c10::cuda::CUDAStreamGuard).
class CUDAStreamGuard {
 public:
  explicit CUDAStreamGuard(CUDAStream stream);
  ~CUDAStreamGuard();
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;
  CUDAStreamGuard& operator=(const CUDAStreamGuard&) = delete;

  CUDAStream original_stream() const { return original_stream_; }
  CUDAStream current_stream() const { return current_stream_; }
  Device original_device() const { return Device(kCUDA, original_device_); }

 private:
  DeviceIndex original_device_;
  CUDAStream original_stream_;
  CUDAStream current_stream_;
};

}  // namespace tg::cuda
