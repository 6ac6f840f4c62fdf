// The C++ half of tests/interop/safetensors_interop.py: `write PATH` saves the reference
// tensors; `check PATH` loads a file the Python side wrote from the same reference and
// compares (exit 1 with the differences on stderr).
#include <tensorgen/tensorgen.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

struct Spec {
  const char* name;
  tg::ScalarType dtype;
  std::vector<int64_t> shape;
};

// Also spelled out in safetensors_interop.py: element i (row-major) is i * 0.5 - 3 for
// floating dtypes, i - 3 for signed integers, i for uint8 and i % 2 for bool.
const std::vector<Spec> kSpecs = {
    {"f32", tg::kFloat, {2, 3}}, {"f64", tg::kDouble, {4}},  {"f16", tg::kHalf, {3}},       {"i64", tg::kLong, {5}},
    {"i32", tg::kInt, {2, 2}},   {"i16", tg::kShort, {3}},   {"i8", tg::kChar, {3}},        {"u8", tg::kByte, {3}},
    {"b", tg::kBool, {4}},       {"scalar", tg::kFloat, {}}, {"empty", tg::kFloat, {0, 2}},
};

double element(tg::ScalarType dtype, int64_t i) {
  if (dtype == tg::kBool) return static_cast<double>(i % 2);
  if (dtype == tg::kByte) return static_cast<double>(i);
  if (tg::is_floating_type(dtype)) return static_cast<double>(i) * 0.5 - 3;
  return static_cast<double>(i - 3);
}

tg::Tensor make(const Spec& spec) {
  int64_t n = 1;
  for (int64_t s : spec.shape) n *= s;
  std::vector<double> values;
  for (int64_t i = 0; i < n; ++i) values.push_back(element(spec.dtype, i));
  return tg::tensor(values, tg::TensorOptions().dtype(tg::kDouble)).to(spec.dtype).reshape(spec.shape);
}

int check(const std::string& path) {
  const tg::serialize::SafetensorsFile file = tg::serialize::load_file(path);
  int failures = 0;
  if (file.metadata.count("written_by") == 0 || file.metadata.at("written_by") != "python") {
    std::cerr << "metadata written_by: expected \"python\"\n";
    ++failures;
  }
  for (const Spec& spec : kSpecs) {
    const tg::Tensor* found = nullptr;
    for (const auto& [name, tensor] : file.tensors) {
      if (name == spec.name) found = &tensor;
    }
    if (found == nullptr) {
      std::cerr << spec.name << ": missing\n";
      ++failures;
      continue;
    }
    const tg::Tensor expected = make(spec);
    if (found->scalar_type() != spec.dtype || found->sizes().vec() != expected.sizes().vec() ||
        tg::eq(found->to(tg::kDouble), expected.to(tg::kDouble)).to(tg::kLong).sum().item<int64_t>() !=
            expected.numel()) {
      std::cerr << spec.name << ": expected " << expected << ", got " << *found << "\n";
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: safetensors_interop_tool write|check PATH\n";
    return 2;
  }
  const std::string mode = argv[1], path = argv[2];
  try {
    if (mode == "write") {
      tg::serialize::NamedTensors tensors;
      for (const Spec& spec : kSpecs) tensors.emplace_back(spec.name, make(spec));
      tg::serialize::save_tensors(tensors, path, {{"written_by", "tensorgen"}});
      return 0;
    }
    if (mode == "check") return check(path);
  } catch (const tg::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  std::cerr << "unknown mode " << mode << "\n";
  return 2;
}
