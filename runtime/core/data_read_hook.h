// Data-read hook: lets a program-capture layer (the jit tracer) forbid reading tensor
// values on this thread, so a traced function that branches on data fails at trace time.
// The core calls notify_data_read(what) where user code reads values (item(), printing);
// the hook, when set, throws. Thread-local: each thread sets and clears its own.
#pragma once

#include <string_view>

namespace tg {

class TensorBase;

using DataReadHook = void (*)(std::string_view what);

// Sets this thread's hook (nullptr for none) and returns the previous one.
DataReadHook set_data_read_hook(DataReadHook hook) noexcept;
// Calls this thread's hook, if any, with a description of the read ("item()").
void notify_data_read(std::string_view what);

// A second hook that is told which tensor is read: recorded-graph trees (runtime/graphs) use
// it to refuse reading an output whose memory a later replay overwrote. Thread-local too.
using TensorReadHook = void (*)(const TensorBase& tensor, std::string_view what);
TensorReadHook set_tensor_read_hook(TensorReadHook hook) noexcept;
// Calls both hooks of this thread.
void notify_data_read(std::string_view what, const TensorBase& tensor);

}  // namespace tg
