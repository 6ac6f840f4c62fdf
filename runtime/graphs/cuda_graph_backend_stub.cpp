// The CUDA backend of tg::graphs in a build without CUDA (cuda_graph_backend.h): every entry
// point raises one clear error, so that the rest of tg::graphs links and says why.
#include "graphs/cuda_graph_backend.h"

#include "core/error.h"

namespace tg::graphs::detail {

namespace {

[[noreturn]] void no_cuda(const char* op, Device device) {
  TG_CHECK(false, "[", op, "] this build of tensorgen has no CUDA, so nothing can be captured on ", device,
           ": configure with -Dcuda=enabled (or -Demulated_cuda=enabled for the host emulation of CUDA), or "
           "capture on the CPU");
  __builtin_unreachable();
}

}  // namespace

alloc::CachingAllocator& cuda_pool_allocator() { no_cuda("graphs::MemPool", Device(DeviceType::CUDA)); }

Device resolve_cuda_device(Device device, const char* op) { no_cuda(op, device); }

struct SideStreamScope::Impl {};

int64_t reserve_side_stream(Device device) { no_cuda("graphs", device); }

SideStreamScope::SideStreamScope(Device device, int64_t /*stream_id*/) {
  if (device.is_cuda()) no_cuda("graphs", device);
}
SideStreamScope::~SideStreamScope() = default;

struct CudaGraphBackend::Impl {};

CudaGraphBackend::CudaGraphBackend(Device device) { no_cuda("graphs::Graph", device); }
CudaGraphBackend::~CudaGraphBackend() = default;
void CudaGraphBackend::capture_begin(alloc::MempoolId /*pool*/) { TG_INTERNAL_ASSERT(false); }
void CudaGraphBackend::capture_end() { TG_INTERNAL_ASSERT(false); }
void CudaGraphBackend::replay() const { TG_INTERNAL_ASSERT(false); }
bool CudaGraphBackend::capturing() const { return false; }
size_t CudaGraphBackend::num_nodes() const { return 0; }

}  // namespace tg::graphs::detail
