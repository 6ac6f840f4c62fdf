// Stream capture on the emulated device (stream_capture.cpp, Note [Emulated stream capture]):
// what the runtime API, the kernel launcher and the cuBLAS shim ask before they run work.
// Invariants: a stream is capturing from cudaStreamBeginCapture until cudaStreamEndCapture;
// work enqueued on it meanwhile is appended to its graph, in order, and not run; a capture
// that met an operation CUDA forbids during capture is invalidated, and records nothing more.
// Threading: any thread; the capture table has its own mutex.
#pragma once

#include <functional>
#include <memory>

#include "cuda/emulation/launch.h"
#include "cuda/emulation/runtime_api.h"

namespace tg::cuda::emu {

// Work for a stream: runs it on the given stream (the capture stream, or the stream a graph is
// launched on) and returns its error.
using StreamWork = std::function<cudaError_t(cudaStream_t)>;

enum class Enqueue {
  kRun,       // the stream is not capturing: run the work now
  kCaptured,  // appended to the stream's graph
  kFailed,    // the stream's capture was invalidated: the thread's error says so
};

// Appends `work` to the graph of `stream` when it is capturing.
Enqueue capture_work(cudaStream_t stream, const StreamWork& work);

// For a call that CUDA calls "potentially unsafe" during capture (cudaMalloc, cudaFree, a
// synchronous copy, a synchronisation of the legacy stream): cudaSuccess when this thread may
// make it now; else cudaErrorStreamCaptureUnsupported, and the captures that forbid it are
// invalidated, as CUDA does (the modes of cudaThreadExchangeStreamCaptureMode).
cudaError_t check_capture_safe(const char* call);
// For a synchronisation or query of `stream` (nullptr: the legacy stream): fails as above when
// `stream` is capturing.
cudaError_t check_stream_not_capturing(cudaStream_t stream, const char* call);
// For a synchronisation of the whole device: fails when any capture is underway on it.
cudaError_t check_device_not_capturing(int device, const char* call);

// Events recorded on a capturing stream are nodes of its graph, not points in time: they cannot
// be queried or waited on by the host while the capture is underway.
void note_event_record(cudaEvent_t event, cudaStream_t stream);
cudaError_t check_event_not_captured(cudaEvent_t event, const char* call);
void forget_event(cudaEvent_t event);

// Whether a launch may start: its configuration and stream are checked as run_grid checks
// them; on failure the launch error is set (block_scheduler.cpp). Capture checks a launch
// when it is recorded, as CUDA does.
bool check_grid(const LaunchConfig& config);

// Defined by runtime_api.cpp: whether `stream` is live (nullptr, the legacy stream, always is).
bool is_live_stream(cudaStream_t stream);

}  // namespace tg::cuda::emu
