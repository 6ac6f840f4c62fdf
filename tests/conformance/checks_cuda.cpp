// CPU against CUDA. The test main filters these cases out where no GPU is present.
#include <doctest/doctest.h>

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

}  // namespace

void check_cpu_cuda(const OpSpec& spec) {
  const Device cuda(kCUDA, 0);
  for (size_t i = 0; i < spec.samples.size(); ++i) {
    const Stack args = materialize(spec, spec.samples[i], spec.primary_dtype(), kSeed + i);
    const std::string where = context(spec, i, args);
    std::vector<Tensor> cpu_outs, cuda_outs;
    if (spec.kind == OpKind::Out) {
      cpu_outs = empty_outs(out_dtypes(spec, args), Device(kCPU));
      cuda_outs = empty_outs(out_dtypes(spec, args), cuda);
    }
    Outcome on_cpu = call(spec.call, clone_tensors(args), cpu_outs);
    Outcome on_cuda = call(spec.call, to_device(args, cuda), cuda_outs);
    if (!on_cpu || !on_cuda) {
      fail(where + ": threw on " + (on_cpu ? "CUDA: " + on_cuda.error : "CPU: " + on_cpu.error));
      continue;
    }
    Stack back = to_device(on_cuda.results, Device(kCPU));
    const std::vector<Tensor> results = tensors_in(on_cpu.results);
    const ScalarType dtype = results.empty() ? spec.primary_dtype() : results[0].scalar_type();
    const std::string difference = mismatch(on_cpu.results, back, tolerance_for(spec, dtype), !spec.values_uninitialized);
    if (!difference.empty()) fail(where + ": CUDA disagrees with CPU: " + difference);
    // One tensor on the other device is an error, not a silent copy.
    std::vector<Tensor> none = cuda_outs;
    Stack mixed = to_device(args, cuda);
    for (size_t a = 0; a < mixed.size(); ++a) {
      if (!mixed[a].isTensor() || !mixed[a].toTensor().defined() || tensors_in(args).size() < 2) continue;
      mixed[a] = args[a];
      Outcome outcome = call(spec.call, mixed, none);
      if (outcome || !outcome.tg_error) fail(where + ": " + spec.args[a].name + " on the CPU and the rest on CUDA should raise tg::Error");
      break;
    }
  }
}

}  // namespace tg::conformance
