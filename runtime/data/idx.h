// The idx file format of the MNIST data (yann.lecun.com/exdb/mnist): bytes 0-1 are zero,
// byte 2 the element type (0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32,
// 0x0E float64), byte 3 the number of dimensions d; then d big-endian uint32 sizes, then the
// elements, big-endian, row-major. Invariant of a file read_idx accepts: its size is exactly
// 4 + 4d + prod(sizes) * itemsize.
#pragma once

#include <string>

#include "core/tensor.h"

namespace tg::data {

// The tensor an idx file holds (CPU, its own dtype). Any deviation from the format is a
// tg::ValueError naming the file, the byte offset and what was expected there.
Tensor read_idx(const std::string& path);
// Writes `tensor` as an idx file (the inverse of read_idx; for test data and tools).
void write_idx(const Tensor& tensor, const std::string& path);

}  // namespace tg::data
