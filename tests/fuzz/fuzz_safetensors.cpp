// Fuzz target: the safetensors reader (tg::serialize::load_from_bytes, runtime/serialize).
// Any bytes load or raise tg::Error naming the source; what loads can be read by a kernel, and
// saves and loads back with the same names, dtypes, shapes, bytes and metadata.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <tensorgen/tensorgen.h>

#include "fuzz_target.h"
#include "serialize/safetensors.h"

namespace tg_fuzz {
namespace {

constexpr const char* kSource = "fuzz.safetensors";

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_safetensors: %s\n", what.c_str());
  std::abort();
}

bool same_tensor(const tg::Tensor& a, const tg::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes().vec() != b.sizes().vec()) return false;
  const size_t bytes = static_cast<size_t>(a.numel()) * a.element_size();
  const tg::Tensor ca = a.contiguous(), cb = b.contiguous();
  return bytes == 0 || std::memcmp(ca.data_ptr(), cb.data_ptr(), bytes) == 0;
}

}  // namespace

void fuzz_one(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  tg::serialize::SafetensorsFile file;
  try {
    file = tg::serialize::load_from_bytes(bytes, kSource);
  } catch (const tg::Error& e) {
    if (e.message().find(kSource) == std::string::npos) fail("an error that does not name the source: " + e.message());
    return;
  }
  // Read every value once (a kernel over the loaded data): loaded tensors must be valid ones.
  for (const auto& [name, tensor] : file.tensors) (void)tensor.to(tg::kDouble).sum();
  const tg::serialize::SafetensorsFile again =
      tg::serialize::load_from_bytes(tg::serialize::save_to_bytes(file.tensors, file.metadata), "saved");
  if (again.metadata != file.metadata || again.tensors.size() != file.tensors.size()) {
    fail("saving and loading changed the metadata or the number of tensors");
  }
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    if (again.tensors[i].first != file.tensors[i].first || !same_tensor(again.tensors[i].second, file.tensors[i].second)) {
      fail("saving and loading changed tensor \"" + file.tensors[i].first + "\"");
    }
  }
}

}  // namespace tg_fuzz
