#include "data/idx.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "tensorgen/ops.h"

namespace tg::data {

namespace {

struct IdxType {
  unsigned char code;
  ScalarType dtype;
};

constexpr IdxType kIdxTypes[] = {{0x08, kByte}, {0x09, kChar},  {0x0B, kShort},
                                 {0x0C, kInt},  {0x0D, kFloat}, {0x0E, kDouble}};

std::string hex(unsigned char c) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "0x%02X", c);
  return buffer;
}

// Elements are big-endian in the file.
void swap_to_native(char* data, size_t count, size_t itemsize) {
  if (itemsize == 1 || std::endian::native == std::endian::big) return;
  for (size_t i = 0; i < count; ++i) std::reverse(data + i * itemsize, data + (i + 1) * itemsize);
}

}  // namespace

Tensor read_idx(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  TG_CHECK_VALUE(file.is_open(), "[read_idx] ", path, ": expected a readable idx file, could not open it");
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(bytes[i]); };
  TG_CHECK_VALUE(bytes.size() >= 4, "[read_idx] ", path, ": expected the 4-byte idx magic number, got a file of ",
                 bytes.size(), " bytes");
  TG_CHECK_VALUE(byte(0) == 0 && byte(1) == 0, "[read_idx] ", path, ": byte 0: expected an idx magic number ",
                 "starting with two zero bytes, got ", hex(byte(0)), " ", hex(byte(1)),
                 " (is this an idx file? a gzip file must be unpacked first)");
  const IdxType* type = nullptr;
  for (const IdxType& t : kIdxTypes) {
    if (t.code == byte(2)) type = &t;
  }
  TG_CHECK_VALUE(type != nullptr, "[read_idx] ", path, ": byte 2: expected an idx type code (0x08, 0x09, 0x0B, ",
                 "0x0C, 0x0D or 0x0E), got ", hex(byte(2)));
  const size_t ndim = byte(3);
  TG_CHECK_VALUE(ndim >= 1, "[read_idx] ", path, ": byte 3: expected at least one dimension, got 0");
  TG_CHECK_VALUE(bytes.size() >= 4 + 4 * ndim, "[read_idx] ", path, ": expected ", ndim, " dimension sizes in bytes ",
                 "4 to ", 4 + 4 * ndim, ", got a file of ", bytes.size(), " bytes");
  std::vector<int64_t> sizes;
  uint64_t numel = 1;
  const uint64_t itemsize = element_size(type->dtype);
  for (size_t d = 0; d < ndim; ++d) {
    uint64_t size = 0;
    for (size_t k = 0; k < 4; ++k) size = (size << 8) | byte(4 + 4 * d + k);
    sizes.push_back(static_cast<int64_t>(size));
    // Sizes are below 2^32, so an overflow shows as a product beyond the file.
    numel = size == 0 || numel <= bytes.size() / size ? numel * size : bytes.size() + 1;
  }
  const uint64_t header = 4 + 4 * ndim;
  const uint64_t expected = numel <= bytes.size() ? header + numel * itemsize : UINT64_MAX;
  TG_CHECK_VALUE(expected == bytes.size(), "[read_idx] ", path, ": expected ", header, " header bytes and ",
                 numel <= bytes.size() ? std::to_string(numel * itemsize) : std::string("more than the file's"),
                 " data bytes for sizes ", IntArrayRef(sizes), " of ", type->dtype, ", got a file of ", bytes.size(),
                 " bytes", expected > bytes.size() ? " (truncated?)" : " (trailing bytes)");
  Tensor t = make_empty_tensor(IntArrayRef(sizes), type->dtype, Device(kCPU));
  if (numel > 0) {
    std::memcpy(t.data_ptr(), bytes.data() + header, numel * itemsize);
    swap_to_native(static_cast<char*>(t.data_ptr()), numel, itemsize);
  }
  return t;
}

void write_idx(const Tensor& tensor, const std::string& path) {
  const IdxType* type = nullptr;
  for (const IdxType& t : kIdxTypes) {
    if (t.dtype == tensor.scalar_type()) type = &t;
  }
  TG_CHECK_VALUE(type != nullptr, "[write_idx] expected a dtype idx stores (uint8, int8, int16, int32, float32, ",
                 "float64), got ", tensor.scalar_type());
  TG_CHECK_VALUE(tensor.dim() >= 1 && tensor.dim() <= 255, "[write_idx] expected 1 to 255 dimensions, got ",
                 tensor.dim());
  NoGradGuard no_grad;
  Tensor t = tensor.detach().to(Device(kCPU)).contiguous();
  std::string bytes = {0, 0, static_cast<char>(type->code), static_cast<char>(t.dim())};
  for (int64_t size : t.sizes()) {
    TG_CHECK_VALUE(size < (int64_t{1} << 32), "[write_idx] expected sizes below 2^32, got ", size);
    for (int k = 3; k >= 0; --k) bytes += static_cast<char>((size >> (8 * k)) & 0xFF);
  }
  const size_t header = bytes.size();
  bytes.append(static_cast<const char*>(t.const_data_ptr()), t.nbytes());
  swap_to_native(bytes.data() + header, static_cast<size_t>(t.numel()), t.itemsize());
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  TG_CHECK(file.is_open(), "[write_idx] ", path, ": expected a writable file, could not open it");
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.close();
  TG_CHECK(!file.fail(), "[write_idx] ", path, ": expected to write the whole file, the write failed");
}

}  // namespace tg::data
