// copy_ with a CUDA tensor on either side: on one device (an elementwise kernel converting the
// dtype, or cudaMemcpyAsync when nothing needs converting), between two devices (a peer copy
// ordered by events on both devices' current streams), and between the host and a device.
// See Note [Copies between host and device].
#include <cstring>

#include "NativeFunctions.h"
#include "cuda/cuda_check.h"
#include "cuda/cuda_event.h"
#include "cuda/cuda_guard.h"
#include "cuda/elementwise_host.h"
#include "cuda/index_check.h"
#include "cuda/pinned_allocator.h"
#include "cuda/pointwise_ops.h"
#include "shape_utils.h"
#include "tensorgen/ops.h"

namespace tg {

// Note [Copies between host and device]
// Every copy runs on the current stream of the CUDA side's device. The host side goes through
// a contiguous host buffer of the destination's dtype (src converted on the CPU first for
// host-to-device, dst converted on the CPU after for device-to-host).
// Host to device with non_blocking=true: a pinned source is copied directly; a pageable one is
// first copied into a pinned staging block from the pinned caching allocator. Either way the
// pinned block is recorded on the stream, so it is not reused before the copy has read it,
// and the call returns without waiting. Without non_blocking, the call waits for the copy.
// Device to host with non_blocking=true into pinned memory returns at once (the caller
// synchronises before reading, as in PyTorch); into pageable memory it waits, since the data
// cannot land there asynchronously.

namespace {

bool same_layout(const Tensor& a, const Tensor& b) { return a.sizes() == b.sizes() && a.strides() == b.strides(); }

// src as a contiguous tensor of `dtype` with dst's shape, on src's device: src itself when it
// already is one.
Tensor contiguous_as(const Tensor& src, const Tensor& dst, ScalarType dtype) {
  if (src.is_contiguous() && src.scalar_type() == dtype && src.sizes() == dst.sizes()) return src;
  Tensor result = make_empty_tensor(dst.sizes(), dtype, src.device());
  result.copy_(src);
  return result;
}

void copy_on_device(const Tensor& dst, const Tensor& src) {
  if (src.scalar_type() == dst.scalar_type() && dst.is_contiguous() && same_layout(dst, src) && !dst.is_alias_of(src)) {
    TG_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), dst.nbytes(), cudaMemcpyDeviceToDevice,
                                  cuda::getCurrentCUDAStream(dst.device().index())));
    return;
  }
  cuda::ElementwiseLaunch launch("copy_", dst, dst.scalar_type(), {{src, src.scalar_type()}});
  cuda::launch_copy(dst.scalar_type(), launch.args());
}

// Between two CUDA devices: dst's stream waits for src's, copies, and src's stream then waits
// for the copy, so src's memory is not reused on its stream before the copy has read it.
void copy_between_devices(const Tensor& dst, const Tensor& src) {
  const Tensor source = contiguous_as(src, dst, dst.scalar_type());
  const Tensor target = dst.is_contiguous() ? dst : make_empty_tensor(dst.sizes(), dst.scalar_type(), dst.device());
  const cuda::CUDAStream src_stream = cuda::getCurrentCUDAStream(src.device().index());
  const cuda::CUDAStream dst_stream = cuda::getCurrentCUDAStream(dst.device().index());
  cuda::CUDAEvent src_ready;
  src_ready.record(src_stream);
  src_ready.block(dst_stream);
  {
    const cuda::CUDAGuard guard(dst.device().index());
    TG_CUDA_CHECK(cudaMemcpyPeerAsync(target.data_ptr(), dst.device().index(), source.data_ptr(),
                                      src.device().index(), target.nbytes(), dst_stream));
  }
  cuda::CUDAEvent copied;
  copied.record(dst_stream);
  copied.block(src_stream);
  if (!target.is_same(dst)) copy_on_device(dst, target);
}

void copy_host_to_device(const Tensor& dst, const Tensor& src, bool non_blocking) {
  const Tensor host = contiguous_as(src, dst, dst.scalar_type());
  const Tensor target = dst.is_contiguous() ? dst : make_empty_tensor(dst.sizes(), dst.scalar_type(), dst.device());
  const cuda::CUDAStream stream = cuda::getCurrentCUDAStream(dst.device().index());
  const size_t nbytes = target.nbytes();
  if (nbytes > 0) {
    if (!non_blocking) {
      TG_CUDA_CHECK(cudaMemcpyAsync(target.data_ptr(), host.data_ptr(), nbytes, cudaMemcpyHostToDevice, stream));
      stream.synchronize();
    } else if (cuda::is_pinned(host)) {
      TG_CUDA_CHECK(cudaMemcpyAsync(target.data_ptr(), host.data_ptr(), nbytes, cudaMemcpyHostToDevice, stream));
      cuda::record_host_use(host.storage()->data_ptr(), stream);
    } else {
      const DataPtr staging = cuda::pinned_allocator()->allocate(nbytes);
      std::memcpy(staging.get(), host.data_ptr(), nbytes);
      TG_CUDA_CHECK(cudaMemcpyAsync(target.data_ptr(), staging.get(), nbytes, cudaMemcpyHostToDevice, stream));
      cuda::record_host_use(staging, stream);
    }
  }
  if (!target.is_same(dst)) copy_on_device(dst, target);
}

void copy_device_to_host(const Tensor& dst, const Tensor& src, bool non_blocking) {
  const cuda::CUDAGuard guard(src.device().index());
  const Tensor device = contiguous_as(src, dst, dst.scalar_type());
  const bool direct = dst.is_contiguous();
  const Tensor target = direct ? dst : make_empty_tensor(dst.sizes(), dst.scalar_type(), Device(kCPU));
  const cuda::CUDAStream stream = cuda::getCurrentCUDAStream(src.device().index());
  const size_t nbytes = target.nbytes();
  if (nbytes > 0) {
    TG_CUDA_CHECK(cudaMemcpyAsync(target.data_ptr(), device.data_ptr(), nbytes, cudaMemcpyDeviceToHost, stream));
  }
  if (non_blocking && direct && cuda::is_pinned(target)) {
    cuda::record_host_use(target.storage()->data_ptr(), stream);
    return;
  }
  stream.synchronize();
  // The host has waited for the device: an index a kernel found out of bounds is reported here
  // at the latest (Note [Index checks on the device]).
  cuda::check_index_errors(src.device().index());
  if (!direct) dst.copy_(target);
}

}  // namespace

Tensor native::copy_cuda_(const Tensor& self, const Tensor& src, bool non_blocking) {
  for (int64_t d = 0; d < self.dim(); ++d) {
    TG_CHECK_VALUE(self.sizes()[d] <= 1 || self.strides()[d] != 0, "[copy_] unsupported operation: more than one ",
                   "element of the written-to tensor (shape ", self.sizes(), ", strides ", self.strides(),
                   ") refers to a single memory location; clone() it first");
  }
  expand_strides(src.sizes(), src.strides(), self.sizes(), "copy_");  // src must broadcast to self
  if (self.is_same(src) || self.numel() == 0) return self;
  if (self.is_cuda() && src.is_cuda()) {
    if (self.device() == src.device()) {
      copy_on_device(self, src);
    } else {
      copy_between_devices(self, src);
    }
  } else if (self.is_cuda()) {
    copy_host_to_device(self, src, non_blocking);
  } else {
    copy_device_to_host(self, src, non_blocking);
  }
  return self;
}

}  // namespace tg
