#include "graphs/recording.h"

#include <tensorgen/tensorgen.h>

#include "cpu/launch.h"

namespace tg::graphs {

RecordedCall::RecordedCall(OperatorHandle o) : op(o) {}
RecordedCall::~RecordedCall() = default;
RecordedCall::RecordedCall(RecordedCall&&) noexcept = default;
RecordedCall& RecordedCall::operator=(RecordedCall&&) noexcept = default;

namespace {
thread_local size_t kernel_calls_made = 0;
}  // namespace

size_t detail::replay_kernel_call_count() { return kernel_calls_made; }

void Recording::add(RecordedCall call) {
  calls_.push_back(std::move(call));
  KernelCall how;
  const RecordedCall& added = calls_.back();
  // Pointers into `arguments`' buffer, which moving the call (as calls_ grows) keeps.
  how.array_call = !added.by_launches && added.kernel->has_array_call();
  if (how.array_call) {
    for (const IValue& v : added.arguments) how.arguments.push_back(&v);
  }
  kernel_calls_.push_back(std::move(how));
}

void Recording::replay_through_kernel(const RecordedCall& call, const KernelCall& how) const {
  ++kernel_calls_made;
  const size_t num_results = call.copy_into.size();
  Stack results;
  if (how.array_call) {
    call.kernel->callFromArray(call.ks, how.arguments.data(), num_results > 0 ? &results : nullptr);
  } else {
    results = call.arguments;
    call.kernel->callBoxed(call.op, call.ks, &results);
    results.erase(results.begin(), results.end() - static_cast<std::ptrdiff_t>(num_results));
  }
  for (size_t i = 0; i < num_results; ++i) {
    if (call.copy_into[i].defined()) call.copy_into[i].copy_(results[i].toTensor());
  }
}

void Recording::replay() const {
  for (size_t i = 0; i < calls_.size(); ++i) {
    const RecordedCall& call = calls_[i];
    if (!call.by_launches) {
      replay_through_kernel(call, kernel_calls_[i]);
      continue;
    }
    for (const std::unique_ptr<cpu::Launch>& launch : call.launches) launch->run();
    for (StorageImpl* storage : call.written) storage->bump_version();
  }
}

size_t Recording::num_fallback_calls() const {
  size_t count = 0;
  for (const RecordedCall& call : calls_) count += !call.by_launches && !call.copy_into.empty() ? 1 : 0;
  return count;
}

size_t Recording::num_launch_calls() const {
  size_t count = 0;
  for (const RecordedCall& call : calls_) count += call.by_launches ? 1 : 0;
  return count;
}

std::vector<KernelReplayedCall> Recording::kernel_replayed_calls() const {
  std::vector<KernelReplayedCall> list;
  for (const RecordedCall& call : calls_) {
    if (!call.by_launches) list.push_back({call.op.operator_name().str(), call.kernel_reason});
  }
  return list;
}

}  // namespace tg::graphs
