// Tracer: captures a function as a jit::Graph by running it once with the Tracer dispatch key
// included on this thread. The key sits below Autograd, so every call that reaches a backend
// (forward operators, and the backward operators the autograd engine runs) passes through one
// boxed fallback that records it. See Note [What the tracer records].
// Threading: tracing state is thread-local; the traced function must run on the calling thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "dispatch/dispatcher.h"
#include "jit/graph.h"

namespace tg::jit {

using TracedFunction = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// Runs fn(example_inputs) once and returns the graph of what it computed: its inputs are
// example_inputs (named input_names[i], or "input<i>"), its outputs what fn returned.
// Throws tg::Error naming the operator when fn does something a graph cannot represent: reads
// tensor values (item(), printing), calls an operator with non-tensor results, or uses a
// tensor that is neither an input nor made inside fn.
Graph trace(const TracedFunction& fn, const std::vector<Tensor>& example_inputs,
            const std::vector<std::string>& input_names = {});

// Whether this thread is tracing now.
bool is_tracing();

// Note [Call interceptor]
// A layer above the jit (runtime/graphs records and checks calls with it) can see every call
// that reaches the Tracer key on this thread while no trace runs: it includes the Tracer key in
// the thread's key set (IncludeDispatchKeyGuard) and sets an interceptor. The interceptor gets
// each call that is not a pure decomposition, with the key set below Tracer, and must run it
// (op.redispatchBoxed(below, stack)) or throw. Thread-local, like tracing itself.
using CallInterceptor = void (*)(const OperatorHandle& op, DispatchKeySet below, Stack* stack);
// Sets this thread's interceptor (nullptr for none) and returns the previous one.
CallInterceptor set_call_interceptor(CallInterceptor interceptor) noexcept;

}  // namespace tg::jit
