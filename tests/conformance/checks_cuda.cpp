// CPU against CUDA. The test main filters these cases out where no GPU is present.
// See Note [What cpu_cuda compares] in docs/cuda.md for the random operators and for tensors
// on two devices.
#include <doctest/doctest.h>

#include <cmath>

#include "check_support.h"
#include "checks.h"
#include "comparison.h"
#include "sample_inputs.h"

namespace tg::conformance {

namespace {

Stack to_device(const Stack& args, Device device) {
  Stack moved;
  for (const IValue& v : args) {
    if (v.isTensor() && v.toTensor().defined()) {
      moved.emplace_back(v.toTensor().to(device));
    } else if (v.isTensorList()) {
      std::vector<Tensor> list;
      for (const Tensor& t : v.toTensorList()) list.push_back(t.to(device));
      moved.emplace_back(std::move(list));
    } else {
      moved.push_back(v);
    }
  }
  return moved;
}

// A random operator's values come from the device's generator, which is not the CPU's
// (Note [Random numbers on CUDA]): its results must have the CPU's shapes and dtypes, be
// finite where the CPU's are, and repeat bit for bit after the same seed.
std::string random_mismatch(const Stack& on_cpu, const Stack& on_cuda, const Stack& again) {
  std::string difference = mismatch(on_cpu, on_cuda, kExact, false);
  if (!difference.empty()) return difference;
  difference = mismatch(on_cuda, again, kExact);
  if (!difference.empty()) return "a second call after the same seed differs: " + difference;
  const std::vector<Tensor> cpu = tensors_in(on_cpu), cuda = tensors_in(on_cuda);
  for (size_t r = 0; r < cpu.size() && r < cuda.size(); ++r) {
    const std::vector<double> want = values_of(cpu[r]), got = values_of(cuda[r]);
    for (size_t k = 0; k < want.size() && k < got.size(); ++k) {
      if (std::isfinite(want[k]) != std::isfinite(got[k])) {
        return "result " + std::to_string(r) + " element " + std::to_string(k) + ": CPU " + std::to_string(want[k]) +
               ", CUDA " + std::to_string(got[k]) + " (finite on one device only)";
      }
    }
  }
  return "";
}

// The call with argument `a` left on the CPU and the rest on CUDA. A tensor with dims on the
// other device must raise tg::Error, unless the overload is `device_check: NoCheck` (copy_,
// expand_as): then it may also succeed, with the CPU's values. A 0-dim CPU tensor joins any
// device as a scalar (LibTorch's rule; runtime/ops/structured.cpp): the call may raise a
// tg::Error or succeed with the CPU's values, but never crash or differ.
void check_mixed(const OpSpec& spec, const std::string& where, const Stack& args, size_t a, const Stack& expected,
                 const std::vector<Tensor>& cuda_outs) {
  const Device cuda(kCUDA, 0);
  Stack mixed = to_device(args, cuda);
  mixed[a] = args[a];
  std::vector<Tensor> outs;
  for (const Tensor& t : cuda_outs) outs.push_back(tg::empty_like(t));
  Outcome outcome = call(spec.call, mixed, outs);
  const bool scalar = args[a].toTensor().dim() == 0;
  const std::string what = spec.args[a].name + (scalar ? " (0-dim)" : "") + " on the CPU and the rest on CUDA";
  if (!outcome) {
    if (!outcome.tg_error) fail(where + ": " + what + " threw something other than tg::Error: " + outcome.error);
    return;
  }
  if (!scalar && spec.device_check) {
    fail(where + ": " + what + " should raise tg::Error");
    return;
  }
  if (spec.random || spec.values_uninitialized) return;
  const std::string difference =
      mismatch(expected, to_device(outcome.results, Device(kCPU)), tolerance_for(spec, spec.primary_dtype()));
  if (!difference.empty()) fail(where + ": " + what + " disagrees with the CPU: " + difference);
}

}  // namespace

void check_cpu_cuda(const OpSpec& spec) {
  const Device cuda(kCUDA, 0);
  for (size_t i = 0; i < spec.samples.size(); ++i) {
    const Stack args = materialize(spec, spec.samples[i], spec.primary_dtype(), kSeed + i);
    const std::string where = context(spec, i, args);
    std::vector<Tensor> cpu_outs, cuda_outs, cuda_outs_again;
    if (spec.kind == OpKind::Out) {
      cpu_outs = empty_outs(out_dtypes(spec, args), Device(kCPU));
      cuda_outs = empty_outs(out_dtypes(spec, args), cuda);
      cuda_outs_again = empty_outs(out_dtypes(spec, args), cuda);
    }
    Outcome on_cpu = call(spec.call, clone_tensors(args), cpu_outs);
    Outcome on_cuda = call(spec.call, to_device(args, cuda), cuda_outs);
    if (!on_cpu || !on_cuda) {
      fail(where + ": threw on " + (on_cpu ? "CUDA: " + on_cuda.error : "CPU: " + on_cpu.error));
      continue;
    }
    Stack back = to_device(on_cuda.results, Device(kCPU));
    std::string difference;
    if (spec.random) {
      Outcome again = call(spec.call, to_device(args, cuda), cuda_outs_again);
      difference = again ? random_mismatch(on_cpu.results, back, to_device(again.results, Device(kCPU)))
                         : "a second call threw: " + again.error;
    } else {
      const std::vector<Tensor> results = tensors_in(on_cpu.results);
      const ScalarType dtype = results.empty() ? spec.primary_dtype() : results[0].scalar_type();
      difference = mismatch(on_cpu.results, back, tolerance_for(spec, dtype), !spec.values_uninitialized);
    }
    if (!difference.empty()) fail(where + ": CUDA disagrees with CPU: " + difference);
    // Each tensor argument in turn on the other device.
    if (tensors_in(args).size() < 2) continue;
    for (size_t a = 0; a < args.size(); ++a) {
      if (!args[a].isTensor() || !args[a].toTensor().defined()) continue;
      check_mixed(spec, where, args, a, on_cpu.results, cuda_outs);
    }
  }
}

}  // namespace tg::conformance
