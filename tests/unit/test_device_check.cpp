// Tests for the generated wrappers' device check (ops/device_check.h): checked_output_device
// raises what check_same_device raises and returns what common_device gives over the inputs,
// in one scan. Tensors that report cuda:0 are host memory under a cuda:0 DataPtr, so the
// check runs without a GPU (it reads devices, never data).
#include <doctest/doctest.h>

#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/storage.h"
#include "core/tensor.h"
#include "core/tensor_impl.h"
#include "ops/device_check.h"
#include "ops/structured.h"

namespace {

tg::Tensor tensor_on(tg::Device device, tg::IntArrayRef sizes) {
  void* data = std::malloc(sizeof(float) * 4);
  tg::Storage storage = tg::make_intrusive<tg::StorageImpl>(tg::DataPtr(data, data, &std::free, device),
                                                             sizeof(float) * 4, nullptr);
  return tg::Tensor(tg::make_intrusive<tg::TensorImpl>(std::move(storage), tg::kFloat, sizes));
}

// The check as it was before it became one scan: the device is common_device over every
// tensor, and each defined tensor must be on it unless it is a CPU scalar.
std::optional<std::string> reference_error(std::string_view op, const std::vector<const tg::Tensor*>& tensors) {
  const tg::Tensor* first = nullptr;
  for (const tg::Tensor* t : tensors) {
    if (t != nullptr && t->defined() && !(t->is_cpu() && t->dim() == 0)) {
      first = t;
      break;
    }
  }
  if (first == nullptr) return std::nullopt;
  for (const tg::Tensor* t : tensors) {
    if (t == nullptr || !t->defined() || t->device() == first->device() || (t->is_cpu() && t->dim() == 0)) continue;
    std::ostringstream message;
    message << "[" << op << "] expected all tensors to be on the same device, but found at least two devices, "
            << first->device() << " and " << t->device();
    return message.str();
  }
  return std::nullopt;
}

// The three functions over a run-time list of up to three tensors.
tg::Device checked(const std::vector<const tg::Tensor*>& t, size_t inputs) {
  switch (t.size()) {
    case 0: return tg::checked_output_device("op", {}, inputs);
    case 1: return tg::checked_output_device("op", {t[0]}, inputs);
    case 2: return tg::checked_output_device("op", {t[0], t[1]}, inputs);
    default: return tg::checked_output_device("op", {t[0], t[1], t[2]}, inputs);
  }
}
void check_same(const std::vector<const tg::Tensor*>& t) {
  switch (t.size()) {
    case 0: return tg::check_same_device("op", {});
    case 1: return tg::check_same_device("op", {t[0]});
    case 2: return tg::check_same_device("op", {t[0], t[1]});
    default: return tg::check_same_device("op", {t[0], t[1], t[2]});
  }
}
tg::Device common(const std::vector<const tg::Tensor*>& t) {
  switch (t.size()) {
    case 0: return tg::common_device({});
    case 1: return tg::common_device({t[0]});
    case 2: return tg::common_device({t[0], t[1]});
    default: return tg::common_device({t[0], t[1], t[2]});
  }
}

template <typename F>
std::optional<std::string> error_of(F&& f) {
  try {
    f();
  } catch (const tg::Error& e) {
    return e.message();
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("device check: the first tensor off the CPU-scalar rule gives the device, the rest must match") {
  const tg::Device cuda(tg::kCUDA, 0);
  tg::Tensor cpu_vector = tensor_on(tg::kCPU, {3});
  tg::Tensor cpu_scalar = tensor_on(tg::kCPU, {});
  tg::Tensor cuda_vector = tensor_on(cuda, {3});
  CHECK(tg::checked_output_device("add.Tensor", {&cpu_vector, &cpu_vector}, 2) == tg::Device(tg::kCPU));
  CHECK(tg::checked_output_device("add.Tensor", {&cpu_scalar, &cuda_vector}, 2) == cuda);
  // Every input a CPU scalar: the outputs go to the CPU even when the out is elsewhere, as
  // common_device over the inputs says (prepare_out then refuses that out).
  CHECK(tg::checked_output_device("add.out", {&cpu_scalar, &cpu_scalar, &cuda_vector}, 2) == tg::Device(tg::kCPU));
  CHECK(error_of([&] { tg::checked_output_device("add.Tensor", {&cpu_vector, &cuda_vector}, 2); }) ==
        "[add.Tensor] expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0");
  CHECK(error_of([&] { tg::check_same_device("add_.Tensor", {&cuda_vector, &cpu_scalar, &cpu_vector}); }) ==
        "[add_.Tensor] expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu");
}

TEST_CASE("device check: one scan agrees with the two-scan check on every mix of up to three tensors") {
  const tg::Device cuda(tg::kCUDA, 0);
  tg::Tensor undefined;
  tg::Tensor cpu_vector = tensor_on(tg::kCPU, {3});
  tg::Tensor cpu_scalar = tensor_on(tg::kCPU, {});
  tg::Tensor cuda_vector = tensor_on(cuda, {3});
  tg::Tensor cuda_scalar = tensor_on(cuda, {});
  tg::Tensor other_cuda = tensor_on(tg::Device(tg::kCUDA, 1), {2});
  const std::vector<const tg::Tensor*> kinds = {nullptr, &undefined, &cpu_vector, &cpu_scalar,
                                                &cuda_vector, &cuda_scalar, &other_cuda};
  int compared = 0;
  for (size_t length = 0; length <= 3; ++length) {
    std::vector<size_t> pick(length, 0);
    while (true) {
      std::vector<const tg::Tensor*> tensors;
      for (size_t i : pick) tensors.push_back(kinds[i]);
      const std::optional<std::string> expected = reference_error("op", tensors);
      for (size_t inputs = 0; inputs <= length; ++inputs) {
        const std::vector<const tg::Tensor*> input_part(tensors.begin(), tensors.begin() + inputs);
        std::optional<tg::Device> device;
        CHECK(error_of([&] { device = checked(tensors, inputs); }) == expected);
        if (!expected) CHECK(*device == common(input_part));
        ++compared;
      }
      CHECK(error_of([&] { check_same(tensors); }) == expected);
      size_t position = 0;
      while (position < length && ++pick[position] == kinds.size()) pick[position++] = 0;
      if (position == length) break;
    }
  }
  CHECK(compared == 1 + 7 * 2 + 49 * 3 + 343 * 4);
}
