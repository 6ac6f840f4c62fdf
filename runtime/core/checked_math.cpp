#include "core/checked_math.h"

#include "core/error.h"

namespace tg {

namespace {

[[noreturn]] [[gnu::cold]] void overflow_error(const char* op, const char* what, IntArrayRef sizes) {
  TG_THROW(Error, "[", op, "] ", what, " of a tensor with sizes ", sizes,
           " would overflow a 64-bit integer; tensors that large cannot exist");
}

}  // namespace

bool multiply_overflows(IntArrayRef sizes, int64_t* out) {
  int64_t product = 1;
  bool overflowed = false;
  for (int64_t s : sizes) {
    if (s == 0) {
      *out = 0;
      return false;
    }
    if (!overflowed) overflowed = mul_overflows(product, s, &product);
  }
  *out = product;
  return overflowed;
}

int64_t checked_numel(const char* op, IntArrayRef sizes) {
  int64_t numel = 0;
  if (multiply_overflows(sizes, &numel)) overflow_error(op, "the number of elements", sizes);
  return numel;
}

size_t checked_nbytes(const char* op, IntArrayRef sizes, size_t itemsize) {
  int64_t bytes = 0;
  if (mul_overflows(checked_numel(op, sizes), static_cast<int64_t>(itemsize), &bytes)) {
    overflow_error(op, "the storage size in bytes", sizes);
  }
  return static_cast<size_t>(bytes);
}

void checked_contiguous_strides(const char* op, IntArrayRef sizes, int64_t* strides_out) {
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides_out[i] = stride;
    // The stride of dim 0 is never multiplied further, so only strides that are used can fail.
    if (i > 0 && mul_overflows(stride, sizes[i] > 1 ? sizes[i] : 1, &stride)) {
      overflow_error(op, "the contiguous strides", sizes);
    }
  }
}

size_t checked_storage_bytes(const char* op, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                             size_t itemsize) {
  for (int64_t s : sizes) {
    if (s == 0) return 0;
  }
  int64_t last = offset;
  for (size_t i = 0; i < sizes.size(); ++i) {
    int64_t term = 0;
    if (mul_overflows(sizes[i] - 1, strides[i], &term) || add_overflows(last, term, &last)) {
      overflow_error(op, "the storage extent", sizes);
    }
  }
  int64_t bytes = 0;
  if (add_overflows(last, 1, &last) || mul_overflows(last, static_cast<int64_t>(itemsize), &bytes)) {
    overflow_error(op, "the storage size in bytes", sizes);
  }
  return static_cast<size_t>(bytes);
}

}  // namespace tg
