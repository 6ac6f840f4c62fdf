// Named tensors in the safetensors format: an 8-byte little-endian header length N, N bytes
// of UTF-8 JSON ({name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {..}}),
// then the raw little-endian bytes. Invariants of a file this reader accepts: the header fits
// in the file; the tensors' byte ranges, sorted by begin, tile the data section exactly
// (each begins where the previous ends, the last ends at the end of the file), and each
// range holds numel * itemsize bytes. See Note [Reading untrusted safetensors].
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tg::serialize {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// Headers above this size are refused (the safetensors package's own limit: 100 MB).
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;

// Writes `tensors` (any device, layout or stride; written as contiguous CPU data) to `path`.
// Names must be unique, non-empty, valid UTF-8 and not "__metadata__". Tensors appear in the
// file in the given order. Throws tg::Error naming the path when it cannot be written.
void save_tensors(const NamedTensors& tensors, const std::string& path,
                  const std::map<std::string, std::string>& metadata = {});

// Reads every tensor of `path` as a CPU tensor, in file order (by data offset).
NamedTensors load_tensors(const std::string& path);

// A whole file: its tensors and its "__metadata__" strings.
struct SafetensorsFile {
  NamedTensors tensors;
  std::map<std::string, std::string> metadata;
};
SafetensorsFile load_file(const std::string& path);

// The same format in memory; `source` names the bytes in errors.
std::string save_to_bytes(const NamedTensors& tensors, const std::map<std::string, std::string>& metadata = {});
SafetensorsFile load_from_bytes(const std::string& bytes, const std::string& source = "<bytes>");

// The safetensors dtype name ("F32", "I64", "BF16", ...) of `type`, and back; the reverse
// throws tg::ValueError for a name tensorgen has no dtype for (U16, F8_E4M3, ...).
const char* safetensors_dtype_name(ScalarType type);

}  // namespace tg::serialize

namespace tg {

// LibTorch's torch::save / torch::load for tensors, in the safetensors format: a single tensor
// is stored under the name "0", a list under "0", "1", ... load(Tensor&) needs a file of
// exactly one tensor; load(std::vector<Tensor>&) reads one named "0".."n-1" in that order.
void save(const Tensor& tensor, const std::string& path);
void save(const std::vector<Tensor>& tensors, const std::string& path);
void load(Tensor& tensor, const std::string& path);
void load(std::vector<Tensor>& tensors, const std::string& path);

}  // namespace tg
