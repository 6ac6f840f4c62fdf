// What the CUDA runtime installs into the CUDA-free core when the library is loaded: the
// device count behind tg::cuda::is_available() and the check factories make before they ask
// for CUDA (core/device_availability.h), the allocator for DeviceType::CUDA, the
// DeviceGuardImpl the autograd engine drives streams and events through, the seeding of the
// CUDA random state by tg::manual_seed, and the pinned host allocator behind pin_memory=true
// (core/pinned_memory.h).
#include "core/cuda_availability.h"
#include "core/device_availability.h"
#include "core/device_guard_impl.h"
#include "core/generator.h"
#include "core/pinned_memory.h"
#include "cuda/cuda_allocator.h"
#include "cuda/cuda_check.h"
#include "cuda/cuda_event.h"
#include "cuda/cuda_generator.h"
#include "cuda/cuda_guard.h"
#include "cuda/pinned_allocator.h"

namespace tg::cuda {

namespace {

class CudaGuardImpl final : public DeviceGuardImpl {
 public:
  // Without a device there is nothing to switch: CUDA work fails later, where it is asked
  // for, with "CUDA is not available".
  Device exchange_device(Device device) const override {
    if (device_count_or_zero() == 0) return device;
    return Device(kCUDA, cuda::exchange_device(device.index()));
  }
  Stream current_stream(Device device) const override { return getCurrentCUDAStream(device.index()).unwrap(); }
  Stream default_stream(Device device) const override { return getDefaultCUDAStream(device.index()).unwrap(); }
  Stream exchange_stream(Stream stream) const override {
    const CUDAStream cuda_stream(stream);
    const CUDAStream previous = getCurrentCUDAStream(cuda_stream.device_index());
    setCurrentCUDAStream(cuda_stream);
    return previous.unwrap();
  }

  void record_event(void** event, Stream stream) const override {
    const CUDAStream cuda_stream(stream);
    const CUDAGuard guard(cuda_stream.device_index());
    if (*event == nullptr) {
      cudaEvent_t created = nullptr;
      TG_CUDA_CHECK(cudaEventCreateWithFlags(&created, cudaEventDisableTiming));
      *event = created;
    }
    TG_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(*event), cuda_stream));
  }
  void block_on_event(void* event, Stream stream) const override {
    const CUDAStream cuda_stream(stream);
    const CUDAGuard guard(cuda_stream.device_index());
    TG_CUDA_CHECK(cudaStreamWaitEvent(cuda_stream, static_cast<cudaEvent_t>(event), 0));
  }
  void destroy_event(void* event, Device device) const noexcept override {
    int previous = -1;
    const bool switch_device = cudaGetDevice(&previous) == cudaSuccess && previous != device.index();
    if (switch_device) (void)cudaSetDevice(device.index());
    (void)cudaEventDestroy(static_cast<cudaEvent_t>(event));
    if (switch_device) (void)cudaSetDevice(previous);
    (void)cudaGetLastError();
  }

  void record_data_ptr_on_stream(const DataPtr& data, Stream stream) const override {
    record_stream(data, CUDAStream(stream));
  }
};

int count_devices() { return device_count_or_zero(); }
void check_any_device(std::string_view op) { check_available(op); }
bool is_pinned_data(const DataPtr& data) { return is_pinned(data); }

[[maybe_unused]] const bool installed = [] {
  static const CudaGuardImpl guard_impl;
  set_device_count_hook(&count_devices);
  set_check_available_hook(&check_any_device);
  set_allocator(kCUDA, cuda_allocator());
  set_device_guard_impl(kCUDA, &guard_impl);
  set_manual_seed_hook(&manual_seed_all);
  set_pinned_memory_hooks(pinned_allocator(), &check_can_pin, &is_pinned_data);
  return true;
}();

}  // namespace

}  // namespace tg::cuda
