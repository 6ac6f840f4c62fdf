// Stream capture and graphs on the emulated device (stream_capture.h).
#include "cuda/emulation/stream_capture.h"

#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

// Note [Emulated stream capture]
// Between cudaStreamBeginCapture(s) and cudaStreamEndCapture(s), every kernel launch, copy,
// memset, event record and cuBLAS GEMM enqueued on s is appended to s's graph as a closure over
// its arguments (a launch keeps a copy of its argument tuple; a GEMM keeps alpha and beta by
// value, as cuBLAS reads host scalars when the call is captured) and does not run. A graph
// launch runs the closures in capture order on the launch stream, so replay reads and writes
// the very addresses the capture saw, as a CUDA graph does. Work on other streams runs as
// before: cross-stream capture (a second stream joining through cudaStreamWaitEvent on an
// event recorded in the capture) is not emulated.
// CUDA's rules for calls during capture are enforced with its error codes, so that code that
// would break on a GPU breaks here:
// - synchronising or querying a capturing stream, or an event recorded in an active capture,
//   or the device while any capture is underway on it: cudaErrorStreamCaptureUnsupported;
// - "potentially unsafe" calls (cudaMalloc, cudaFree, cudaHostAlloc, cudaFreeHost, a
//   synchronous cudaMemcpy, synchronising the legacy stream), under the rules of the thread's
//   capture mode (cudaThreadExchangeStreamCaptureMode): forbidden to a thread with its own
//   non-relaxed capture underway, and, in global mode, while another thread has a global
//   capture underway: cudaErrorStreamCaptureUnsupported;
// - either failure invalidates the captures concerned: later work on their streams fails
//   with cudaErrorStreamCaptureInvalidated, and cudaStreamEndCapture returns that error and
//   no graph;
// - capture on the legacy stream is refused, and a non-relaxed capture must end on the
//   thread that began it (cudaErrorStreamCaptureWrongThread).

namespace tg::cuda::emu {

std::atomic<int> captures_underway{0};

struct GraphNodeState {
  StreamWork work;
};

struct GraphState {
  std::vector<std::unique_ptr<GraphNodeState>> nodes;
};

struct GraphExecState {
  std::vector<StreamWork> work;
};

namespace {

struct Capture {
  cudaStreamCaptureMode mode;
  std::thread::id thread;
  int device;
  std::unique_ptr<GraphState> graph = std::make_unique<GraphState>();
  std::string invalidated_by;  // empty while valid
};

struct CaptureTable {
  std::mutex mutex;  // guards everything below
  std::map<cudaStream_t, Capture> captures;
  std::map<cudaEvent_t, cudaStream_t> captured_events;  // event -> the capturing stream it was recorded on
};

CaptureTable& table() {
  static CaptureTable* t = new CaptureTable();  // never destroyed: see Note [Allocators live forever]
  return *t;
}

thread_local cudaStreamCaptureMode thread_mode = cudaStreamCaptureModeGlobal;
std::atomic<int64_t> graph_launches{0};

cudaError_t fail(cudaError_t error, const std::string& detail) {
  set_launch_error(error, detail.c_str());
  return error;
}

// Precondition: table().mutex held.
void invalidate(Capture& capture, const std::string& why) {
  if (capture.invalidated_by.empty()) capture.invalidated_by = why;
}

cudaError_t forbidden(const char* call, const std::string& reason) {
  return fail(cudaErrorStreamCaptureUnsupported, std::string("operation not permitted when stream is capturing: ") +
                                                     call + " " + reason + "; the capture is invalidated");
}

}  // namespace

int64_t graph_launch_count() { return graph_launches.load(); }

Enqueue capture_work(cudaStream_t stream, const StreamWork& work) {
  if (captures_underway.load(std::memory_order_acquire) == 0 || stream == nullptr) return Enqueue::kRun;
  CaptureTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.captures.find(stream);
  if (it == t.captures.end()) return Enqueue::kRun;
  Capture& capture = it->second;
  if (!capture.invalidated_by.empty()) {
    fail(cudaErrorStreamCaptureInvalidated,
         "operation failed due to a previous error during capture (" + capture.invalidated_by + ")");
    return Enqueue::kFailed;
  }
  capture.graph->nodes.push_back(std::make_unique<GraphNodeState>(GraphNodeState{work}));
  return Enqueue::kCaptured;
}

cudaError_t check_capture_safe(const char* call) {
  if (captures_underway.load(std::memory_order_acquire) == 0 || thread_mode == cudaStreamCaptureModeRelaxed) {
    return cudaSuccess;
  }
  CaptureTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  const std::thread::id self = std::this_thread::get_id();
  bool forbid = false;
  for (auto& [stream, capture] : t.captures) {
    if (capture.mode == cudaStreamCaptureModeRelaxed) continue;
    const bool own = capture.thread == self;
    if (own || (thread_mode == cudaStreamCaptureModeGlobal && capture.mode == cudaStreamCaptureModeGlobal)) {
      invalidate(capture, std::string(call) + " during capture");
      forbid = true;
    }
  }
  if (!forbid) return cudaSuccess;
  return forbidden(call, "during a stream capture (it is not stream-ordered: a graph could not replay it)");
}

cudaError_t check_stream_not_capturing(cudaStream_t stream, const char* call) {
  if (stream == nullptr) return check_capture_safe(call);
  if (captures_underway.load(std::memory_order_acquire) == 0) return cudaSuccess;
  CaptureTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.captures.find(stream);
  if (it == t.captures.end()) return cudaSuccess;
  invalidate(it->second, std::string(call) + " of the capturing stream");
  return forbidden(call, "of a stream that is capturing (its work is recorded, not run: there is nothing to wait for)");
}

cudaError_t check_device_not_capturing(int device, const char* call) {
  if (captures_underway.load(std::memory_order_acquire) == 0) return cudaSuccess;
  CaptureTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  bool forbid = false;
  for (auto& [stream, capture] : t.captures) {
    if (capture.device != device) continue;
    invalidate(capture, std::string(call) + " during capture");
    forbid = true;
  }
  if (!forbid) return cudaSuccess;
  return forbidden(call, "while a stream of the device is capturing");
}

void note_event_record(cudaEvent_t event, cudaStream_t stream) {
  CaptureTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (stream != nullptr && t.captures.count(stream) != 0) {
    t.captured_events[event] = stream;
  } else {
    t.captured_events.erase(event);
  }
}

cudaError_t check_event_not_captured(cudaEvent_t event, const char* call) {
  if (captures_underway.load(std::memory_order_acquire) == 0) return cudaSuccess;
  CaptureTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto recorded = t.captured_events.find(event);
  if (recorded == t.captured_events.end()) return cudaSuccess;
  auto capture = t.captures.find(recorded->second);
  if (capture == t.captures.end()) return cudaSuccess;
  invalidate(capture->second, std::string(call) + " of an event recorded in the capture");
  return forbidden(call, "of an event recorded in a capture underway");
}

void forget_event(cudaEvent_t event) {
  CaptureTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.captured_events.erase(event);
}

bool capture_grid(const LaunchConfig& config, void (*thread_body)(void*), std::shared_ptr<void> context) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (config.stream == nullptr || cudaStreamIsCapturing(config.stream, &status) != cudaSuccess ||
      status == cudaStreamCaptureStatusNone) {
    return false;
  }
  if (!check_grid(config)) return true;  // the launch error is set; nothing is recorded
  StreamWork work = [config, thread_body, context](cudaStream_t stream) {
    LaunchConfig replayed = config;
    replayed.stream = stream;
    run_grid(replayed, thread_body, context.get());
    return cudaGetLastError();
  };
  if (capture_work(config.stream, work) == Enqueue::kRun) work(config.stream);  // the capture ended meanwhile
  return true;
}

}  // namespace tg::cuda::emu

using tg::cuda::emu::Capture;
using tg::cuda::emu::captures_underway;
using tg::cuda::emu::fail;
using tg::cuda::emu::table;

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  if (stream == nullptr) {
    return fail(cudaErrorStreamCaptureUnsupported,
                "operation not permitted when stream is capturing: cudaStreamBeginCapture on the legacy default "
                "stream (capture a stream made with cudaStreamCreate)");
  }
  if (!tg::cuda::emu::is_live_stream(stream)) {
    return fail(cudaErrorInvalidResourceHandle, "invalid resource handle: cudaStreamBeginCapture");
  }
  if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
      mode != cudaStreamCaptureModeRelaxed) {
    return fail(cudaErrorInvalidValue, "invalid argument: cudaStreamBeginCapture: unknown capture mode");
  }
  auto& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (t.captures.count(stream) != 0) {
    return fail(cudaErrorIllegalState, "operation not permitted when stream is capturing: cudaStreamBeginCapture on "
                                       "a stream that is already capturing");
  }
  t.captures.emplace(stream, Capture{mode, std::this_thread::get_id(), tg::cuda::emu::stream_device(stream),
                                     std::make_unique<tg::cuda::emu::GraphState>(), {}});
  captures_underway.fetch_add(1, std::memory_order_acq_rel);
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  if (graph == nullptr) return fail(cudaErrorInvalidValue, "invalid argument: cudaStreamEndCapture: graph is null");
  *graph = nullptr;
  auto& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.captures.find(stream);
  if (it == t.captures.end()) {
    return fail(cudaErrorStreamCaptureUnmatched,
                "the capture was not initiated in this stream: cudaStreamEndCapture on a stream that is not capturing");
  }
  Capture& capture = it->second;
  if (capture.mode != cudaStreamCaptureModeRelaxed && capture.thread != std::this_thread::get_id()) {
    return fail(cudaErrorStreamCaptureWrongThread,
                "attempt to terminate a thread-local capture sequence from another thread");
  }
  std::unique_ptr<tg::cuda::emu::GraphState> captured = std::move(capture.graph);
  const std::string invalidated_by = capture.invalidated_by;
  t.captures.erase(it);
  std::erase_if(t.captured_events, [&](const auto& entry) { return entry.second == stream; });
  captures_underway.fetch_sub(1, std::memory_order_acq_rel);
  if (!invalidated_by.empty()) {
    return fail(cudaErrorStreamCaptureInvalidated,
                "operation failed due to a previous error during capture (" + invalidated_by + ")");
  }
  *graph = captured.release();
  return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  if (status == nullptr) return fail(cudaErrorInvalidValue, "invalid argument: cudaStreamIsCapturing: status is null");
  *status = cudaStreamCaptureStatusNone;
  if (captures_underway.load(std::memory_order_acquire) == 0 || stream == nullptr) return cudaSuccess;
  auto& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.captures.find(stream);
  if (it != t.captures.end()) {
    *status = it->second.invalidated_by.empty() ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusInvalidated;
  }
  return cudaSuccess;
}

cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
  if (mode == nullptr) return fail(cudaErrorInvalidValue, "invalid argument: cudaThreadExchangeStreamCaptureMode");
  std::swap(*mode, tg::cuda::emu::thread_mode);
  return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
  if (graph == nullptr || count == nullptr) return fail(cudaErrorInvalidValue, "invalid argument: cudaGraphGetNodes");
  if (nodes != nullptr) {
    for (size_t i = 0; i < *count && i < graph->nodes.size(); ++i) nodes[i] = graph->nodes[i].get();
  }
  *count = graph->nodes.size();
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long /*flags*/) {
  if (exec == nullptr || graph == nullptr) return fail(cudaErrorInvalidValue, "invalid argument: cudaGraphInstantiate");
  auto* instance = new tg::cuda::emu::GraphExecState();
  for (const auto& node : graph->nodes) instance->work.push_back(node->work);
  *exec = instance;
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags) {
  return cudaGraphInstantiateWithFlags(exec, graph, flags);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  if (exec == nullptr) return fail(cudaErrorInvalidValue, "invalid argument: cudaGraphLaunch: the graph exec is null");
  if (!tg::cuda::emu::is_live_stream(stream)) {
    return fail(cudaErrorInvalidResourceHandle, "invalid resource handle: cudaGraphLaunch on a stream that is not live");
  }
  std::vector<tg::cuda::emu::StreamWork> work = exec->work;
  auto run = [work](cudaStream_t s) {
    int previous = 0;
    (void)cudaGetDevice(&previous);
    const int device = tg::cuda::emu::stream_device(s);
    if (device != previous) (void)cudaSetDevice(device);
    (void)cudaGetLastError();
    cudaError_t status = cudaSuccess;
    for (const auto& node : work) {
      status = node(s);
      if (status != cudaSuccess) break;
    }
    if (device != previous) (void)cudaSetDevice(previous);
    return status;
  };
  tg::cuda::emu::graph_launches.fetch_add(1);
  switch (tg::cuda::emu::capture_work(stream, run)) {
    case tg::cuda::emu::Enqueue::kCaptured: return cudaSuccess;  // a child graph of the capture
    case tg::cuda::emu::Enqueue::kFailed: return cudaErrorStreamCaptureInvalidated;
    case tg::cuda::emu::Enqueue::kRun: break;
  }
  const cudaError_t status = run(stream);
  if (status != cudaSuccess) {
    // Keep the failing node's text (set by the launch) as this thread's error.
    tg::cuda::emu::set_launch_error(status, cudaGetErrorString(status));
  }
  return status;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  if (exec == nullptr) return fail(cudaErrorInvalidValue, "invalid argument: cudaGraphExecDestroy");
  delete exec;
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  if (graph == nullptr) return fail(cudaErrorInvalidValue, "invalid argument: cudaGraphDestroy");
  delete graph;
  return cudaSuccess;
}
