// Writes and reads NumPy .npy files (format 1.0, little-endian, C order) for the tensors the
// ONNX comparisons pass to Python. Only what those need: float32, float64, int64.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "tensorgen/tensorgen.h"

namespace tg::graph_test {

inline const char* npy_descr(ScalarType t) {
  switch (t) {
    case kFloat:
      return "<f4";
    case kDouble:
      return "<f8";
    case kLong:
      return "<i8";
    default:
      return nullptr;
  }
}

inline void save_npy(const Tensor& tensor, const std::string& path) {
  const char* descr = npy_descr(tensor.scalar_type());
  TG_CHECK(descr != nullptr, "[save_npy] unsupported dtype ", tensor.scalar_type());
  const Tensor t = tensor.contiguous();
  std::ostringstream shape;
  shape << '(';
  for (int64_t s : t.sizes()) shape << s << ',';
  shape << ')';
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape.str() + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  TG_CHECK(out.good(), "[save_npy] cannot write '", path, "'");
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(header.size());
  out.write(reinterpret_cast<const char*>(&len), 2);
  out << header;
  out.write(static_cast<const char*>(t.data_ptr()), static_cast<std::streamsize>(t.nbytes()));
}

}  // namespace tg::graph_test
