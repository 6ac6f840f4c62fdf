// The CUDA runtime API of the emulated device (docs/cuda.md, "Host emulation"): the types and
// functions of cuda_runtime_api.h that tensorgen calls, implemented on the host. Invariants:
// every call returns a cudaError_t and records a failure as the thread's last error, as the
// real runtime does; work on a stream runs when it is enqueued, so each stream (and the whole
// device) runs in order, except on a capturing stream, where it is recorded into a graph
// (stream_capture.h). Threading: all functions may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
};
struct uint3 {
  unsigned int x, y, z;
};

enum cudaError_t : int {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalState = 401,
  cudaErrorNotReady = 600,
  cudaErrorLaunchFailure = 719,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorStreamCaptureUnmatched = 903,
  cudaErrorStreamCaptureImplicit = 906,
  cudaErrorCapturedEvent = 907,
  cudaErrorStreamCaptureWrongThread = 908,
};
using cudaError = cudaError_t;

enum cudaMemcpyKind : int {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaDataType_t : int {
  CUDA_R_32F = 0,
  CUDA_R_64F = 1,
  CUDA_R_16F = 2,
  CUDA_R_16BF = 14,
};

namespace tg::cuda::emu {
struct StreamState;
struct EventState;
struct GraphState;
struct GraphExecState;
struct GraphNodeState;
}  // namespace tg::cuda::emu
using cudaStream_t = tg::cuda::emu::StreamState*;
using cudaEvent_t = tg::cuda::emu::EventState*;
using cudaGraph_t = tg::cuda::emu::GraphState*;
using cudaGraphExec_t = tg::cuda::emu::GraphExecState*;
using cudaGraphNode_t = tg::cuda::emu::GraphNodeState*;

enum cudaStreamCaptureMode : int {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};
enum cudaStreamCaptureStatus : int {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2,
};

inline constexpr unsigned int cudaStreamDefault = 0x0;
inline constexpr unsigned int cudaStreamNonBlocking = 0x1;
inline constexpr unsigned int cudaEventDefault = 0x0;
inline constexpr unsigned int cudaEventBlockingSync = 0x1;
inline constexpr unsigned int cudaEventDisableTiming = 0x2;
inline constexpr unsigned int cudaHostAllocDefault = 0x0;
inline constexpr unsigned int cudaHostAllocPortable = 0x1;

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int major;
  int minor;
  int multiProcessorCount;
};

cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);

cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest);

cudaError_t cudaMalloc(void** ptr, size_t size);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream = nullptr);
cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t count,
                                cudaStream_t stream = nullptr);
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream = nullptr);

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);

// Stream capture and graphs (stream_capture.h, Note [Emulated stream capture]).
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status);
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count);
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags = 0);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);

namespace tg::cuda::emu {

// Emulation-only observations and controls, for tests of the emulation itself.
// The device a stream belongs to (the current device's default stream for nullptr).
int stream_device(cudaStream_t stream);
// Number of kernels launched on `device` so far (all streams).
int64_t launch_count(int device);
// Bytes of device memory currently allocated through cudaMalloc on `device`.
size_t device_bytes_in_use(int device);
// Whether `ptr` lies inside an allocation of the emulated device `device` (-1: any device).
bool is_device_pointer(const void* ptr, int device = -1);
// Records a failure of the last launch as the thread's error (cudaErrorLaunchFailure), with
// `detail` as the text cudaGetErrorString returns for it.
void set_launch_error(cudaError_t error, const char* detail);
// Graphs launched so far (cudaGraphLaunch), all devices.
int64_t graph_launch_count();
// Makes a created stream lag, for tests of what waits for events (the pinned allocator's
// reuse): its work still runs when enqueued, but the stream and the events recorded on it
// from now on answer cudaErrorNotReady to queries until release_stream, or until a host
// wait on it (cudaStreamSynchronize, cudaEventSynchronize of such an event,
// cudaDeviceSynchronize) lets it catch up. Waits of other streams on it do not lag.
void hold_stream(cudaStream_t stream);
void release_stream(cudaStream_t stream);

}  // namespace tg::cuda::emu
