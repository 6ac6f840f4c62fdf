// The runtime API of the emulated device (runtime_api.h). Device memory is host memory,
// allocated per call with a capacity per device (TG_EMU_DEVICE_MEMORY_MB, default 4096), so
// that the caching allocator's CUDA backend (runtime/cuda/cuda_allocator.cpp) runs unchanged
// above it, out-of-memory retries included. Streams run their work when it is enqueued
// (Note [Emulated streams]).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "cuda/emulation/device_state.h"
#include "cuda/emulation/observe.h"
#include "cuda/emulation/runtime_api.h"
#include "cuda/emulation/stream_capture.h"

// Note [Emulated streams]
// Every kernel, copy and memset runs to completion inside the call that enqueues it, on the
// calling thread. So each stream runs in order, and work is also ordered across streams: the
// emulation cannot show a missing cudaStreamWaitEvent or record_stream as a wrong value. What
// it checks instead is that the calls are well-formed: handles alive and of the right
// device, a launch on a stream of the current device, copies whose pointers are on the side
// their direction says, events recorded before they are timed. Queries answer "done"
// (cudaSuccess), as a GPU that has caught up would, except on a stream a test holds back
// (hold_stream), whose queries answer "not ready" until it is released or waited for. A
// capturing stream records its work instead of running it (Note [Emulated stream capture]
// in stream_capture.cpp).

namespace tg::cuda::emu {

struct StreamState {
  int device;
  int priority;
  unsigned int flags;
  bool held = false;   // hold_stream: queries answer "not ready"
  uint64_t holds = 0;  // holds so far; an event lags only behind the hold it was recorded in
};

struct EventState {
  int device;
  unsigned int flags;
  bool recorded = false;
  std::chrono::steady_clock::time_point when{};
  StreamState* lagging = nullptr;  // the held stream it was recorded on, and that hold's number
  uint64_t lagging_hold = 0;
};

namespace {

struct Allocation {
  size_t size;
  int device;  // -1: pinned host memory
};

int env_int(const char* name, int fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return end != nullptr && *end == '\0' && value > 0 && value < (1 << 20) ? static_cast<int>(value) : fallback;
}

struct Runtime {
  std::mutex mutex;  // guards everything below
  const int device_count = env_int("TG_EMU_DEVICE_COUNT", 2);
  const size_t capacity = static_cast<size_t>(env_int("TG_EMU_DEVICE_MEMORY_MB", 4096)) << 20;
  std::map<uintptr_t, Allocation> allocations;  // start -> allocation
  std::map<int, size_t> in_use;                 // device -> bytes
  std::map<int, int64_t> launches;              // device -> kernels launched
  std::set<StreamState*> streams;
  std::set<EventState*> events;
};

Runtime& runtime() {
  static Runtime* r = new Runtime();  // never destroyed: see Note [Allocators live forever]
  return *r;
}

std::atomic<int64_t> host_waits{0};

thread_local int current_device = 0;
thread_local cudaError_t last_error = cudaSuccess;
thread_local std::string last_detail;
thread_local cudaError_t detail_error = cudaSuccess;

cudaError_t fail(cudaError_t error, std::string detail) {
  last_error = error;
  detail_error = error;
  last_detail = std::move(detail);
  return error;
}

std::string pointer_text(const void* p) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", p);
  return text;
}

// The device of the allocation holding [p, p + n): -1 for pinned memory, -2 for none.
// Precondition: r.mutex held.
int owner(Runtime& r, const void* p, size_t n) {
  const auto address = reinterpret_cast<uintptr_t>(p);
  auto it = r.allocations.upper_bound(address);
  if (it == r.allocations.begin()) return -2;
  --it;
  if (address + n > it->first + it->second.size) return -2;
  return it->second.device;
}

bool valid_stream(Runtime& r, cudaStream_t stream) { return stream == nullptr || r.streams.count(stream) != 0; }

// Whether the event waits behind a hold that has not been released. Precondition: r.mutex held.
bool lags(Runtime& r, const EventState* event) {
  const StreamState* stream = event->lagging;
  return stream != nullptr && r.streams.count(event->lagging) != 0 && stream->held &&
         stream->holds == event->lagging_hold;
}

// Precondition: r.mutex held.
cudaError_t check_side(Runtime& r, const void* p, size_t n, bool device, const char* call, const char* which) {
  if (n == 0) return cudaSuccess;
  const int side = owner(r, p, n);
  if (device && side < 0) {
    return fail(cudaErrorInvalidValue, std::string("invalid argument: ") + call + ": the " + which + " " +
                                           pointer_text(p) + " (" + std::to_string(n) +
                                           " bytes) is not inside one device allocation");
  }
  if (!device && side >= 0) {
    return fail(cudaErrorInvalidValue, std::string("invalid argument: ") + call + ": the " + which + " " +
                                           pointer_text(p) + " is device memory, but the direction says host");
  }
  return cudaSuccess;
}

}  // namespace

int64_t host_wait_count() { return host_waits.load(); }

int stream_device(cudaStream_t stream) { return stream == nullptr ? current_device : stream->device; }

int64_t launch_count(int device) {
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.launches[device];
}

size_t device_bytes_in_use(int device) {
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.in_use[device];
}

bool is_device_pointer(const void* ptr, int device) {
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  const int side = owner(r, ptr, 1);
  return device < 0 ? side >= 0 : side == device;
}

void set_launch_error(cudaError_t error, const char* detail) { fail(error, detail); }

bool is_live_stream(cudaStream_t stream) {
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  return valid_stream(r, stream);
}

void hold_stream(cudaStream_t stream) {
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (stream == nullptr || r.streams.count(stream) == 0) return (void)fail(cudaErrorInvalidResourceHandle, "hold_stream");
  stream->held = true;
  ++stream->holds;
}

void release_stream(cudaStream_t stream) {
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (stream == nullptr || r.streams.count(stream) == 0) return (void)fail(cudaErrorInvalidResourceHandle, "release_stream");
  stream->held = false;
}

bool check_launch_stream(cudaStream_t stream, std::string* why) {
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!valid_stream(r, stream)) {
    *why = "the stream " + pointer_text(stream) + " is not a live stream";
    return false;
  }
  if (stream != nullptr && stream->device != current_device) {
    *why = "the stream is on device " + std::to_string(stream->device) + " but device " +
           std::to_string(current_device) + " is current";
    return false;
  }
  return true;
}

void count_launch(cudaStream_t stream) {
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  ++r.launches[stream_device(stream)];
}

}  // namespace tg::cuda::emu

using tg::cuda::emu::EventState;
using tg::cuda::emu::fail;
using tg::cuda::emu::runtime;
using tg::cuda::emu::StreamState;

cudaError_t cudaGetLastError() {
  const cudaError_t error = tg::cuda::emu::last_error;
  tg::cuda::emu::last_error = cudaSuccess;
  return error;
}

cudaError_t cudaPeekAtLastError() { return tg::cuda::emu::last_error; }

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorIllegalState: return "cudaErrorIllegalState";
    case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
    case cudaErrorStreamCaptureInvalidated: return "cudaErrorStreamCaptureInvalidated";
    case cudaErrorStreamCaptureUnmatched: return "cudaErrorStreamCaptureUnmatched";
    case cudaErrorStreamCaptureImplicit: return "cudaErrorStreamCaptureImplicit";
    case cudaErrorCapturedEvent: return "cudaErrorCapturedEvent";
    case cudaErrorStreamCaptureWrongThread: return "cudaErrorStreamCaptureWrongThread";
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  // The detail of this thread's last failure of that kind: which kernel, which block, why.
  if (error == tg::cuda::emu::detail_error && !tg::cuda::emu::last_detail.empty()) {
    return tg::cuda::emu::last_detail.c_str();
  }
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorIllegalState: return "operation not permitted in the current state";
    case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated: return "operation failed due to a previous error during capture";
    case cudaErrorStreamCaptureUnmatched: return "the capture was not initiated in this stream";
    case cudaErrorStreamCaptureWrongThread: return "attempt to terminate a thread-local capture sequence from another thread";
    default: return "unknown error";
  }
}

cudaError_t cudaGetDeviceCount(int* count) {
  *count = runtime().device_count;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  *device = tg::cuda::emu::current_device;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= runtime().device_count) {
    return fail(cudaErrorInvalidDevice, "invalid device ordinal");
  }
  tg::cuda::emu::current_device = device;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (device < 0 || device >= runtime().device_count) return fail(cudaErrorInvalidDevice, "invalid device ordinal");
  *prop = cudaDeviceProp{};
  std::snprintf(prop->name, sizeof prop->name, "tensorgen emulated CUDA device %d (host CPU)", device);
  prop->totalGlobalMem = runtime().capacity;
  prop->sharedMemPerBlock = 48 * 1024;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 2147483647;
  prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
  prop->major = 8;
  prop->minor = 0;
  // Few multiprocessors: grids sized to fill the device stay small, so that kernels run
  // quickly here, yet have several blocks (grid-stride loops run more than once).
  prop->multiProcessorCount = tg::cuda::emu::env_int("TG_EMU_SM_COUNT", 2);
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() {
  if (const cudaError_t e = tg::cuda::emu::check_device_not_capturing(tg::cuda::emu::current_device,
                                                                        "cudaDeviceSynchronize")) {
    return e;
  }
  ++tg::cuda::emu::host_waits;
  auto& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (StreamState* stream : r.streams) {
    if (stream->device == tg::cuda::emu::current_device) stream->held = false;
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  *least = 0;
  *greatest = -5;
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** ptr, size_t size) {
  if (const cudaError_t e = tg::cuda::emu::check_capture_safe("cudaMalloc")) return e;
  auto& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  const int device = tg::cuda::emu::current_device;
  const size_t rounded = (size + 511) / 512 * 512;
  if (r.in_use[device] + rounded > r.capacity) {
    *ptr = nullptr;
    return fail(cudaErrorMemoryAllocation, "out of memory");
  }
  void* p = std::aligned_alloc(512, rounded == 0 ? 512 : rounded);
  if (p == nullptr) return fail(cudaErrorMemoryAllocation, "out of memory");
  r.allocations[reinterpret_cast<uintptr_t>(p)] = {rounded == 0 ? 512 : rounded, device};
  r.in_use[device] += rounded;
  *ptr = p;
  return cudaSuccess;
}

namespace {
cudaError_t free_allocation(void* ptr, bool device, const char* call) {
  if (ptr == nullptr) return cudaSuccess;
  auto& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.allocations.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == r.allocations.end() || (it->second.device >= 0) != device) {
    return fail(cudaErrorInvalidValue, std::string("invalid argument: ") + call + "(" +
                                           tg::cuda::emu::pointer_text(ptr) + "): not the start of a live " +
                                           (device ? "device" : "pinned host") + " allocation");
  }
  if (device) r.in_use[it->second.device] -= it->second.size;
  r.allocations.erase(it);
  std::free(ptr);
  return cudaSuccess;
}
}  // namespace

cudaError_t cudaFree(void* ptr) {
  if (const cudaError_t e = tg::cuda::emu::check_capture_safe("cudaFree")) return e;
  return free_allocation(ptr, true, "cudaFree");
}

cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int /*flags*/) {
  if (const cudaError_t e = tg::cuda::emu::check_capture_safe("cudaHostAlloc")) return e;
  auto& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  const size_t rounded = (size + 511) / 512 * 512;
  void* p = std::aligned_alloc(512, rounded == 0 ? 512 : rounded);
  if (p == nullptr) return fail(cudaErrorMemoryAllocation, "out of memory");
  r.allocations[reinterpret_cast<uintptr_t>(p)] = {rounded == 0 ? 512 : rounded, -1};
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void* ptr) {
  if (const cudaError_t e = tg::cuda::emu::check_capture_safe("cudaFreeHost")) return e;
  return free_allocation(ptr, false, "cudaFreeHost");
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  auto& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  *total_bytes = r.capacity;
  *free_bytes = r.capacity - r.in_use[tg::cuda::emu::current_device];
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  auto& r = runtime();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!tg::cuda::emu::valid_stream(r, stream)) {
      return fail(cudaErrorInvalidResourceHandle, "invalid resource handle: cudaMemcpyAsync on a stream that is not live");
    }
    const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if (kind != cudaMemcpyDefault) {
      if (const cudaError_t e = tg::cuda::emu::check_side(r, dst, count, dst_device, "cudaMemcpyAsync", "destination"))
        return e;
      if (const cudaError_t e = tg::cuda::emu::check_side(r, src, count, src_device, "cudaMemcpyAsync", "source"))
        return e;
    }
  }
  switch (tg::cuda::emu::capture_work(stream, [=](cudaStream_t s) { return cudaMemcpyAsync(dst, src, count, kind, s); })) {
    case tg::cuda::emu::Enqueue::kCaptured: return cudaSuccess;
    case tg::cuda::emu::Enqueue::kFailed: return cudaErrorStreamCaptureInvalidated;
    case tg::cuda::emu::Enqueue::kRun: break;
  }
  if (kind == cudaMemcpyDeviceToHost) ++tg::cuda::emu::host_waits;
  if (count != 0) std::memmove(dst, src, count);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  // Synchronous: it waits for the legacy stream, which a capture forbids.
  if (const cudaError_t e = tg::cuda::emu::check_capture_safe("cudaMemcpy")) return e;
  return cudaMemcpyAsync(dst, src, count, kind, nullptr);
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t count,
                                cudaStream_t stream) {
  auto& r = runtime();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!tg::cuda::emu::valid_stream(r, stream)) {
      return fail(cudaErrorInvalidResourceHandle, "invalid resource handle: cudaMemcpyPeerAsync on a dead stream");
    }
    if (count != 0 && (tg::cuda::emu::owner(r, dst, count) != dst_device ||
                       tg::cuda::emu::owner(r, src, count) != src_device)) {
      return fail(cudaErrorInvalidValue, "invalid argument: cudaMemcpyPeerAsync: a pointer is not memory of the "
                                         "device named beside it");
    }
  }
  switch (tg::cuda::emu::capture_work(
      stream, [=](cudaStream_t s) { return cudaMemcpyPeerAsync(dst, dst_device, src, src_device, count, s); })) {
    case tg::cuda::emu::Enqueue::kCaptured: return cudaSuccess;
    case tg::cuda::emu::Enqueue::kFailed: return cudaErrorStreamCaptureInvalidated;
    case tg::cuda::emu::Enqueue::kRun: break;
  }
  if (count != 0) std::memmove(dst, src, count);
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream) {
  auto& r = runtime();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!tg::cuda::emu::valid_stream(r, stream)) {
      return fail(cudaErrorInvalidResourceHandle, "invalid resource handle: cudaMemsetAsync on a dead stream");
    }
    if (const cudaError_t e = tg::cuda::emu::check_side(r, ptr, count, true, "cudaMemsetAsync", "destination")) return e;
  }
  switch (tg::cuda::emu::capture_work(stream, [=](cudaStream_t s) { return cudaMemsetAsync(ptr, value, count, s); })) {
    case tg::cuda::emu::Enqueue::kCaptured: return cudaSuccess;
    case tg::cuda::emu::Enqueue::kFailed: return cudaErrorStreamCaptureInvalidated;
    case tg::cuda::emu::Enqueue::kRun: break;
  }
  if (count != 0) std::memset(ptr, value, count);
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
  auto& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  *stream = new StreamState{tg::cuda::emu::current_device, priority, flags};
  r.streams.insert(*stream);
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  auto& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (stream == nullptr || r.streams.erase(stream) == 0) {
    return fail(cudaErrorInvalidResourceHandle, "invalid resource handle: cudaStreamDestroy");
  }
  delete stream;
  return cudaSuccess;
}

namespace {
cudaError_t check_stream_wait(cudaStream_t stream, const char* call) {
  if (!tg::cuda::emu::is_live_stream(stream)) {
    return fail(cudaErrorInvalidResourceHandle, std::string("invalid resource handle: ") + call);
  }
  return tg::cuda::emu::check_stream_not_capturing(stream, call);
}
}  // namespace

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  if (const cudaError_t e = check_stream_wait(stream, "cudaStreamQuery")) return e;
  auto& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (stream != nullptr && stream->held) return fail(cudaErrorNotReady, "device not ready");
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (const cudaError_t e = check_stream_wait(stream, "cudaStreamSynchronize")) return e;
  ++tg::cuda::emu::host_waits;
  {
    auto& r = runtime();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (stream != nullptr && r.streams.count(stream) != 0) stream->held = false;  // the host waits: caught up
  }
  return cudaStreamQuery(stream);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int /*flags*/) {
  auto& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!tg::cuda::emu::valid_stream(r, stream) || r.events.count(event) == 0) {
    return fail(cudaErrorInvalidResourceHandle, "invalid resource handle: cudaStreamWaitEvent");
  }
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  auto& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  *event = new EventState{tg::cuda::emu::current_device, flags};
  r.events.insert(*event);
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  auto& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (event == nullptr || r.events.erase(event) == 0) {
    return fail(cudaErrorInvalidResourceHandle, "invalid resource handle: cudaEventDestroy");
  }
  tg::cuda::emu::forget_event(event);
  delete event;
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  auto& r = runtime();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.events.count(event) == 0 || !tg::cuda::emu::valid_stream(r, stream)) {
      return fail(cudaErrorInvalidResourceHandle, "invalid resource handle: cudaEventRecord");
    }
    if (tg::cuda::emu::stream_device(stream) != event->device) {
      return fail(cudaErrorInvalidResourceHandle,
                  "invalid resource handle: cudaEventRecord: the event belongs to device " +
                      std::to_string(event->device) + ", the stream to device " +
                      std::to_string(tg::cuda::emu::stream_device(stream)));
    }
  }
  tg::cuda::emu::note_event_record(event, stream);
  switch (tg::cuda::emu::capture_work(stream, [event](cudaStream_t s) { return cudaEventRecord(event, s); })) {
    case tg::cuda::emu::Enqueue::kCaptured: return cudaSuccess;
    case tg::cuda::emu::Enqueue::kFailed: return cudaErrorStreamCaptureInvalidated;
    case tg::cuda::emu::Enqueue::kRun: break;
  }
  std::lock_guard<std::mutex> lock(r.mutex);
  event->recorded = true;
  event->when = std::chrono::steady_clock::now();
  const bool held = stream != nullptr && stream->held;
  event->lagging = held ? stream : nullptr;
  event->lagging_hold = held ? stream->holds : 0;
  return cudaSuccess;
}

namespace {
cudaError_t check_event_wait(cudaEvent_t event, const char* call) {
  {
    auto& r = runtime();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.events.count(event) == 0) return fail(cudaErrorInvalidResourceHandle, std::string("invalid resource handle: ") + call);
  }
  return tg::cuda::emu::check_event_not_captured(event, call);
}
}  // namespace

cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (const cudaError_t e = check_event_wait(event, "cudaEventQuery")) return e;
  auto& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (tg::cuda::emu::lags(r, event)) return fail(cudaErrorNotReady, "device not ready");
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (const cudaError_t e = check_event_wait(event, "cudaEventSynchronize")) return e;
  ++tg::cuda::emu::host_waits;
  {
    auto& r = runtime();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.events.count(event) != 0 && tg::cuda::emu::lags(r, event)) event->lagging->held = false;  // caught up
  }
  return cudaEventQuery(event);
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  auto& r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.events.count(start) == 0 || r.events.count(end) == 0 || (start->flags & cudaEventDisableTiming) ||
      (end->flags & cudaEventDisableTiming)) {
    return fail(cudaErrorInvalidResourceHandle, "invalid resource handle: cudaEventElapsedTime");
  }
  if (!start->recorded || !end->recorded) return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event was never recorded");
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return cudaSuccess;
}
