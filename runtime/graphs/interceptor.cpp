#include "graphs/interceptor.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/allocator_override.h"
#include "core/data_read_hook.h"
#include "core/error.h"
#include "core/intrusive_ptr.h"
#include "core/tensor_impl.h"
#include "cpu/launch.h"
#include "dispatch/local_dispatch_key_set.h"
#include "jit/static/out_variant.h"
#include "jit/tracer.h"

#include <tensorgen/tensorgen.h>

namespace tg::graphs::detail {

namespace {

struct CaptureState {
  Recording* recording = nullptr;
  // Data pointers of pool storages seen so far -> their non-owning stand-ins (aliases share
  // one). Keyed by address, not storage object: a freed storage's object may be reused.
  std::unordered_map<const void*, Storage> unowned;
  // Data pointers of the storages that recorded calls produced (replay rewrites them).
  std::unordered_set<const void*> produced;
  // Data pointers the pool handed out during this capture.
  std::unordered_set<const void*> allocated;
  // > 0 while a recorded call runs: calls that reach the interceptor then are nested in it.
  int running = 0;
};

struct ThreadState {
  int activations = 0;
  jit::CallInterceptor previous_interceptor = nullptr;
  CaptureState* capture = nullptr;
  DataReadHook previous_read_hook = nullptr;
  // See Note [Liveness of replayed outputs] (tree.h). Holding the storage keeps its address
  // from being reused by another storage while the entry exists.
  std::unordered_map<const StorageImpl*, std::pair<Storage, std::string>> overwritten;
};

thread_local ThreadState tls;

// A copy of t outside the pool, made without recording it.
Tensor constant_copy(const Tensor& t) {
  ExcludeDispatchKeyGuard no_interception(DispatchKey::Tracer);
  Allocator* previous = set_thread_allocator_override(DeviceType::CPU, nullptr);
  Tensor copy;
  try {
    copy = t.clone();
  } catch (...) {
    set_thread_allocator_override(DeviceType::CPU, previous);
    throw;
  }
  set_thread_allocator_override(DeviceType::CPU, previous);
  copy.unsafeGetTensorImpl()->set_wrapped_number(t.unsafeGetTensorImpl()->is_wrapped_number());
  return copy;
}

// Note [What a recording holds]
// A pool tensor that a recorded call produced is held through a non-owning alias, so that its
// block is reused once the captured code drops it (replay recomputes it in order). A pool
// tensor nothing recorded produced (a C++ number wrapped as a tensor, data written by host
// code during the capture) is a constant: it is copied out of the pool when recorded, because
// its block may be one that an earlier call of the replay rewrites. A pool tensor that existed
// before the capture (another graph's output in a shared pool) is read in place.
Tensor unowned_alias(CaptureState& capture, const Tensor& t) {
  if (!t.defined() || !t.storage() || !is_pool_memory(t.storage()->data_ptr())) return t;
  const StorageImpl& s = *t.storage();
  if (!capture.produced.contains(s.data())) {
    // Made before the capture (read in place), or during it by no recorded call (a constant).
    return capture.allocated.contains(s.data()) ? constant_copy(t) : t;
  }
  Storage& alias = capture.unowned[s.data()];
  if (!alias || alias->nbytes() != s.nbytes()) {
    alias = make_intrusive<StorageImpl>(DataPtr(s.data(), nullptr, nullptr, s.device()), s.nbytes(), nullptr);
  }
  auto& it = alias;
  auto impl = make_intrusive<TensorImpl>(it, t.scalar_type(), t.sizes());
  impl->set_sizes_and_strides(t.sizes(), t.strides());
  impl->set_storage_offset(t.storage_offset());
  impl->set_wrapped_number(t.unsafeGetTensorImpl()->is_wrapped_number());
  return Tensor(std::move(impl));
}

// A tensor the recording holds in place of another (a constant's copy).
struct Replaced {
  Tensor original;
  Tensor held;
};

// What a recorded call keeps of a value: see Note [What a recording holds]. Tensors it does
// not keep as themselves (same address) are listed in `replaced`.
IValue unowned_value(CaptureState& capture, const IValue& v, std::vector<Replaced>& replaced) {
  auto keep = [&](const Tensor& t) {
    Tensor held = unowned_alias(capture, t);
    if (held.defined() && held.data_ptr() != t.data_ptr()) replaced.push_back({t, held});
    return held;
  };
  if (v.isTensor()) return IValue(keep(v.toTensor()));
  if (v.isTensorList()) {
    std::vector<Tensor> list;
    for (const Tensor& t : v.toTensorList()) list.push_back(keep(t));
    return IValue(std::move(list));
  }
  return v;
}

// Moves the launch operands that point at a replaced tensor to its copy. Returns why that is
// impossible (an operand elsewhere in the replaced memory, or a copy laid out differently),
// or an empty string. See Note [Replay by launches].
std::string move_to_copies(std::vector<std::unique_ptr<cpu::Launch>>& launches, const std::vector<Replaced>& replaced) {
  for (const Replaced& r : replaced) {
    if (!r.original.storage() || r.original.storage()->nbytes() == 0) continue;
    const char* begin = static_cast<const char*>(r.original.storage()->data());
    const char* end = begin + r.original.storage()->nbytes();
    const bool same_layout = r.original.sizes() == r.held.sizes() && r.original.strides() == r.held.strides() &&
                             r.original.scalar_type() == r.held.scalar_type();
    for (const std::unique_ptr<cpu::Launch>& launch : launches) {
      for (char*& operand : launch->operands()) {
        if (operand < begin || operand >= end) continue;
        if (operand != r.original.data_ptr() || !same_layout) {
          return "a loop reads a recorded constant at an address its copy cannot stand in for";
        }
        operand = static_cast<char*>(r.held.data_ptr());
      }
    }
  }
  return {};
}

// The storages of the tensors a call writes (its Tensor(a!) arguments).
std::vector<StorageImpl*> written_storages(const FunctionSchema& schema, const Stack& arguments) {
  std::vector<StorageImpl*> written;
  for (size_t i = 0; i < schema.arguments.size() && i < arguments.size(); ++i) {
    const auto& alias = schema.arguments[i].type.alias;
    if (!alias || !alias->is_write) continue;
    const IValue& v = arguments[i];
    if (v.isTensor() && v.toTensor().defined() && v.toTensor().storage()) {
      written.push_back(v.toTensor().storage().get());
    }
    if (v.isTensorList()) {
      for (const Tensor& t : v.toTensorList()) {
        if (t.defined() && t.storage()) written.push_back(t.storage().get());
      }
    }
  }
  return written;
}

void check_value(const OperatorHandle& op, const IValue& v) {
  auto check = [&](const Tensor& t) {
    if (!t.defined() || !t.storage()) return;
    auto it = tls.overwritten.find(t.storage().get());
    if (it != tls.overwritten.end()) {
      TG_CHECK(false, "[", op.operator_name().str(), "] ", it->second.second);
    }
  };
  if (v.isTensor()) check(v.toTensor());
  if (v.isTensorList()) {
    for (const Tensor& t : v.toTensorList()) check(t);
  }
}

Device device_of(const Stack& arguments, const Stack& results) {
  for (const Stack* stack : {&arguments, &results}) {
    for (const IValue& v : *stack) {
      if (v.isTensor() && v.toTensor().defined()) return v.toTensor().device();
      if (v.isTensorList() && !v.toTensorList().empty()) return v.toTensorList()[0].device();
    }
  }
  return Device(DeviceType::CPU);
}

DispatchKeySet backend_keys(const OperatorHandle& op, Device device) {
  const DispatchKey backend = device.is_cuda() ? DispatchKey::CUDA : DispatchKey::CPU;
  return DispatchKeySet{backend, DispatchKey::BackendSelect} & op.entry().dispatch_mask();
}

// See Note [CPU recording].
void record(CaptureState& capture, const OperatorHandle& op, Stack arguments, const Stack& results,
            cpu::LaunchRecorder launches) {
  const FunctionSchema& schema = op.schema();
  const std::string name = op.operator_name().str();
  bool writes = false;
  for (const Argument& arg : schema.arguments) writes = writes || (arg.type.alias && arg.type.alias->is_write);
  bool aliases = false;
  for (const Argument& ret : schema.returns) {
    aliases = aliases || ret.type.alias.has_value();
    TG_CHECK(ret.type.base == BaseType::Tensor, "[graphs::capture] ", name, " returns '", ret.type.str(),
             "': a recorded graph cannot hold an operator with a non-tensor result (its value depends on "
             "data); move it out of the captured region");
  }
  for (const IValue& r : results) {
    if (r.isTensor() && r.toTensor().defined() && r.toTensor().storage()) {
      capture.produced.insert(r.toTensor().storage()->data());
    }
  }
  const Device device = device_of(arguments, results);
  TG_CHECK(device.is_cpu(), "[graphs::capture] ", name, " runs on ", device,
           ": this build records CPU work only (CUDA graph capture is not implemented yet)");
  RecordedCall call(op);
  call.ks = backend_keys(op, device);
  std::vector<Replaced> replaced;
  if (writes) {
    call.kernel = &op.entry().lookup(call.ks);
    for (const IValue& v : arguments) call.arguments.push_back(unowned_value(capture, v, replaced));
    call.written = written_storages(schema, call.arguments);
  } else {
    if (aliases) return;  // a view: its geometry over fixed memory needs no replay
    bool outputs_plain = true;
    for (const IValue& r : results) {
      outputs_plain = outputs_plain && r.isTensor() && r.toTensor().defined() && r.toTensor().is_contiguous();
    }
    if (auto out = jit::find_out_variant(op); out && outputs_plain) {
      call.op = out->op;
      call.ks = backend_keys(out->op, device);
      call.kernel = &out->op.entry().lookup(call.ks);
      for (int source : out->argument_sources) {
        const IValue& v = source >= 0 ? arguments[static_cast<size_t>(source)]
                                      : results[static_cast<size_t>(-source - 1)];
        call.arguments.push_back(unowned_value(capture, v, replaced));
      }
    } else {
      TG_CHECK(!schema.returns.empty() && results.size() == schema.returns.size(), "[graphs::capture] ", name,
               " has no result to replay into");
      call.kernel = &op.entry().lookup(call.ks);
      for (const IValue& v : arguments) call.arguments.push_back(unowned_value(capture, v, replaced));
      for (const IValue& r : results) {
        TG_CHECK(r.isTensor(), "[graphs::capture] ", name,
                 " returns a list of new tensors and has no out= variant: it cannot be recorded yet");
        call.copy_into.push_back(unowned_alias(capture, r.toTensor()));
      }
    }
  }
  // See Note [Replay by launches].
  if (!launches.declared) {
    call.kernel_reason = "its kernel does not declare cpu::LaunchesOnly";
  } else if (!launches.refused.empty()) {
    call.kernel_reason = std::move(launches.refused);
  } else {
    call.kernel_reason = move_to_copies(launches.launches, replaced);
  }
  if (call.kernel_reason.empty()) {
    call.by_launches = true;
    call.launches = std::move(launches.launches);
  } else {
    call.written.clear();
  }
  capture.recording->add(std::move(call));
}

// The data-read hook while a recorded call runs: the kernel may read (its replay through the
// kernel reads again), but a replay by launches would not.
void refuse_launches_on_read(std::string_view what) {
  if (cpu::LaunchRecorder* launches = cpu::launch_recorder()) {
    launches->refuse("its kernel reads tensor data (" + std::string(what) + ")");
  }
}

// Runs a call as the captured code made it, recording the CPU loops it launches. The calls its
// kernel makes come back to the interceptor (the Tracer key stays included): see run_nested.
void run_recorded(CaptureState& capture, const OperatorHandle& op, DispatchKeySet below, Stack* stack,
                  cpu::LaunchRecorder& launches) {
  cpu::LaunchRecorderScope recording_launches(&launches);
  const DataReadHook previous = set_data_read_hook(&refuse_launches_on_read);
  ++capture.running;
  try {
    op.redispatchBoxed(below, stack);
  } catch (...) {
    --capture.running;
    set_data_read_hook(previous);
    throw;
  }
  --capture.running;
  set_data_read_hook(previous);
}

// Whether an operator only makes a view (its returns alias an argument, nothing is written):
// it touches no memory, so it needs no declaration to be part of a replay by launches.
bool is_view(const FunctionSchema& schema) {
  for (const Argument& arg : schema.arguments) {
    if (arg.type.alias && arg.type.alias->is_write) return false;
  }
  bool aliases = false;
  for (const Argument& ret : schema.returns) aliases = aliases || ret.type.alias.has_value();
  return aliases;
}

// A call made by the kernel of a recorded call: not recorded itself (the recorded call's
// replay through its kernel makes it again). Its launches join the recorded call's when it is
// replayable by launches itself (a view, or a kernel that declares cpu::LaunchesOnly and
// whose own calls are replayable, and so on down); otherwise the recorded call is not.
void run_nested(const OperatorHandle& op, DispatchKeySet below, Stack* stack) {
  cpu::LaunchRecorder* caller = cpu::launch_recorder();
  cpu::LaunchRecorder nested;
  {
    cpu::LaunchRecorderScope recording_launches(&nested);
    op.redispatchBoxed(below, stack);
  }
  if (caller == nullptr) return;
  const std::string name = op.operator_name().str();
  if (!nested.declared && nested.launches.empty() && nested.refused.empty() && is_view(op.schema())) return;
  if (!nested.declared) {
    caller->refuse("its kernel calls " + name + ", whose kernel does not declare cpu::LaunchesOnly");
  } else if (!nested.refused.empty()) {
    caller->refuse("its kernel calls " + name + ", which cannot replay by launches: " + nested.refused);
  }
  for (std::unique_ptr<cpu::Launch>& launch : nested.launches) caller->launches.push_back(std::move(launch));
}

void intercept(const OperatorHandle& op, DispatchKeySet below, Stack* stack) {
  CaptureState* capture = tls.capture;
  if (capture != nullptr && capture->running > 0) return run_nested(op, below, stack);
  const size_t num_args = op.schema().arguments.size();
  TG_INTERNAL_ASSERT(stack->size() >= num_args);
  const size_t base = stack->size() - num_args;
  if (!tls.overwritten.empty()) {
    for (size_t i = base; i < stack->size(); ++i) check_value(op, (*stack)[i]);
  }
  if (capture == nullptr) {
    ExcludeDispatchKeyGuard no_interception(DispatchKey::Tracer);
    const DataReadHook previous = set_data_read_hook(nullptr);  // kernels may read data
    try {
      op.redispatchBoxed(below, stack);
    } catch (...) {
      set_data_read_hook(previous);
      throw;
    }
    set_data_read_hook(previous);
    return;
  }
  Stack arguments(stack->begin() + static_cast<std::ptrdiff_t>(base), stack->end());
  cpu::LaunchRecorder launches;
  run_recorded(*capture, op, below, stack, launches);
  const size_t num_returns = op.schema().returns.size();
  Stack results(stack->end() - static_cast<std::ptrdiff_t>(num_returns), stack->end());
  record(*capture, op, std::move(arguments), results, std::move(launches));
}

}  // namespace

InterceptorActivation::InterceptorActivation() {
  if (tls.activations++ == 0) {
    tls.previous_interceptor = jit::set_call_interceptor(&intercept);
    LocalDispatchKeySet& keys = local_dispatch_key_set();
    keys.included = keys.included.add(DispatchKey::Tracer);
  }
}

InterceptorActivation::~InterceptorActivation() {
  if (--tls.activations == 0) {
    LocalDispatchKeySet& keys = local_dispatch_key_set();
    keys.included = keys.included.remove(DispatchKey::Tracer);
    jit::set_call_interceptor(tls.previous_interceptor);
  }
}

namespace {

[[noreturn]] void forbid_data_read(std::string_view what) {
  TG_CHECK(false, "[graphs::capture] the captured code reads tensor data (", what,
           "): a recorded graph cannot depend on values, and a replay would not read them again. Move the "
           "read out of the captured region");
  __builtin_unreachable();
}

CaptureState* begin_capture(Recording& recording) {
  TG_CHECK(tls.capture == nullptr, "[graphs::capture_begin] this thread is already capturing; end that "
           "capture (capture_end) before starting another");
  TG_CHECK(!jit::is_tracing(), "[graphs::capture_begin] cannot capture inside jit::trace");
  tls.capture = new CaptureState{&recording, {}, {}, {}};
  tls.previous_read_hook = set_data_read_hook(&forbid_data_read);
  return tls.capture;
}

}  // namespace

// begin_capture runs last, so that members already made are undone if it throws.
CaptureScope::CaptureScope(Recording& recording, const MemPool& pool) : activation_(), allocate_(pool) {
  begin_capture(recording);
}

CaptureScope::~CaptureScope() {
  set_data_read_hook(tls.previous_read_hook);
  delete tls.capture;
  tls.capture = nullptr;
}

bool is_capturing() { return tls.capture != nullptr; }

void note_capture_allocation(const void* ptr) {
  if (tls.capture == nullptr) return;
  tls.capture->allocated.insert(ptr);
  tls.capture->produced.erase(ptr);  // a new occupant, not produced by a recorded call (yet)
}

void note_produced(const Tensor& t) {
  if (tls.capture != nullptr && t.defined() && t.storage()) tls.capture->produced.insert(t.storage()->data());
}

static void check_read(const TensorBase& t, std::string_view what) {
  if (!t.defined() || !t.storage()) return;
  auto it = tls.overwritten.find(t.storage().get());
  TG_CHECK(it == tls.overwritten.end(), "[", what, "] ", it->second.second);
}

void mark_overwritten(const Storage& storage, std::string message) {
  // Keeps the checks on for as long as a marked storage is referenced by anyone but us.
  thread_local std::optional<InterceptorActivation> checking;
  if (!storage) return;
  if (!checking) set_tensor_read_hook(&check_read);
  std::erase_if(tls.overwritten, [](const auto& entry) { return entry.second.first->use_count() == 1; });
  tls.overwritten[storage.get()] = {storage, std::move(message)};
  if (!checking) checking.emplace();
}

void check_not_overwritten(const Tensor& t, const char* what) {
  if (!t.defined() || !t.storage()) return;
  auto it = tls.overwritten.find(t.storage().get());
  TG_CHECK(it == tls.overwritten.end(), "[", what, "] ", it->second.second);
}

}  // namespace tg::graphs::detail
