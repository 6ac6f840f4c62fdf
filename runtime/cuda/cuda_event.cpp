#include "cuda/cuda_event.h"

#include <utility>

#include "cuda/cuda_check.h"
#include "cuda/cuda_guard.h"

namespace tg::cuda {

CUDAEvent::~CUDAEvent() {
  if (event_ == nullptr) return;
  // Never throws: a destructor may run while the process is shutting CUDA down.
  int previous = -1;
  const bool switch_device = cudaGetDevice(&previous) == cudaSuccess && previous != device_;
  if (switch_device) (void)cudaSetDevice(device_);
  (void)cudaEventDestroy(event_);
  if (switch_device) (void)cudaSetDevice(previous);
  (void)cudaGetLastError();
}

CUDAEvent::CUDAEvent(CUDAEvent&& other) noexcept
    : flags_(other.flags_), device_(other.device_), event_(std::exchange(other.event_, nullptr)) {}

CUDAEvent& CUDAEvent::operator=(CUDAEvent&& other) noexcept {
  if (this != &other) {
    CUDAEvent old(std::move(*this));
    flags_ = other.flags_;
    device_ = other.device_;
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

void CUDAEvent::record(const CUDAStream& stream) {
  const CUDAGuard guard(stream.device_index());
  if (event_ == nullptr) {
    TG_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags_));
    device_ = stream.device_index();
  }
  TG_CHECK(device_ == stream.device_index(), "[CUDAEvent] an event made on cuda:", static_cast<int>(device_),
           " cannot be recorded on ", stream);
  TG_CUDA_CHECK(cudaEventRecord(event_, stream));
}

void CUDAEvent::block(const CUDAStream& stream) const {
  if (event_ == nullptr) return;
  const CUDAGuard guard(stream.device_index());
  TG_CUDA_CHECK(cudaStreamWaitEvent(stream, event_, 0));
}

bool CUDAEvent::query() const {
  if (event_ == nullptr) return true;
  const cudaError_t status = cudaEventQuery(event_);
  if (status == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  TG_CUDA_CHECK(status);
  return true;
}

void CUDAEvent::synchronize() const {
  if (event_ != nullptr) TG_CUDA_CHECK(cudaEventSynchronize(event_));
}

float CUDAEvent::elapsed_time(const CUDAEvent& end) const {
  TG_CHECK(is_created() && end.is_created(), "[CUDAEvent] elapsed_time needs both events recorded");
  TG_CHECK(!(flags_ & cudaEventDisableTiming) && !(end.flags_ & cudaEventDisableTiming),
           "[CUDAEvent] elapsed_time needs events made with timing enabled (cudaEventDefault)");
  float milliseconds = 0;
  TG_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, event_, end.event_));
  return milliseconds;
}

}  // namespace tg::cuda
