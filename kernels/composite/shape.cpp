// stack over cat, and split, split_with_sizes and chunk over narrow: each piece is a view of
// self, with its own autograd history through slice.
#include <algorithm>

#include "NativeFunctions.h"
#include "core/checked_math.h"
#include "core/wrap_dim.h"
#include "tensorgen/ops.h"

namespace tg::native {

namespace {

std::vector<Tensor> unsqueezed_for_stack(TensorList tensors, int64_t dim) {
  TG_CHECK_VALUE(!tensors.empty(), "[stack] expected a non-empty list of Tensors");
  const int64_t wrapped = maybe_wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> pieces;
  for (size_t i = 0; i < tensors.size(); ++i) {
    TG_CHECK_VALUE(tensors[i].sizes() == tensors[0].sizes(), "[stack] stack expects each tensor to be equal size, ",
                   "but got ", tensors[0].sizes(), " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
    pieces.push_back(tensors[i].unsqueeze(wrapped));
  }
  return pieces;
}

}  // namespace

Tensor stack(TensorList tensors, int64_t dim) {
  const int64_t wrapped = tensors.empty() ? dim : maybe_wrap_dim(dim, tensors[0].dim() + 1, "stack");
  return tg::cat(unsqueezed_for_stack(tensors, dim), wrapped);
}

Tensor stack_out(TensorList tensors, int64_t dim, const Tensor& out) {
  const int64_t wrapped = tensors.empty() ? dim : maybe_wrap_dim(dim, tensors[0].dim() + 1, "stack");
  return ops::cat_out::call(unsqueezed_for_stack(tensors, dim), wrapped, out);
}

std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  TG_CHECK_VALUE(self.dim() > 0, "[split] split expects at least a 1-dimensional tensor");
  dim = maybe_wrap_dim(dim, self.dim(), "split");
  const int64_t size = self.size(dim);
  TG_CHECK_VALUE(split_size > 0 || (split_size == 0 && size == 0), "[split] split_size can only be 0 if dimension ",
                 "size is 0, but got dimension size of ", size, " and split_size ", split_size);
  // A size-0 dim still gives one (empty) piece, as in PyTorch. ceil(size / split_size) without
  // size + split_size, which overflows for a split_size near 2^63 (found by the sanitized sweep).
  const int64_t pieces = size == 0 ? 1 : (size - 1) / split_size + 1;
  std::vector<Tensor> result;
  for (int64_t i = 0; i < pieces; ++i) {
    const int64_t start = i * split_size;
    result.push_back(self.narrow(dim, start, std::min(split_size, size - start)));
  }
  return result;
}

std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  TG_CHECK_VALUE(self.dim() > 0, "[split_with_sizes] expects at least a 1-dimensional tensor");
  dim = maybe_wrap_dim(dim, self.dim(), "split_with_sizes");
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    TG_CHECK_VALUE(s >= 0, "[split_with_sizes] split_sizes must be non-negative, got ", split_sizes);
    TG_CHECK_VALUE(!add_overflows(total, s, &total), "[split_with_sizes] split_sizes ", split_sizes,
                   " sum past the int64 range");
  }
  TG_CHECK_VALUE(total == self.size(dim), "[split_with_sizes] expects split_sizes to sum exactly to ", self.size(dim),
                 " (input tensor's size at dimension ", dim, "), but got split_sizes=", split_sizes);
  std::vector<Tensor> result;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    result.push_back(self.narrow(dim, start, s));
    start += s;
  }
  return result;
}

std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  TG_CHECK_VALUE(self.dim() > 0, "[chunk] chunk expects at least a 1-dimensional tensor");
  TG_CHECK_VALUE(chunks > 0, "[chunk] chunk expects `chunks` to be greater than 0, got: ", chunks);
  dim = maybe_wrap_dim(dim, self.dim(), "chunk");
  const int64_t size = self.size(dim);
  // ceil(size / chunks) without computing size + chunks - 1, which overflows for huge chunks.
  // A dim of size 0 gives one empty piece (split with split_size 0), as LibTorch's chunk did;
  // `chunks` empty pieces would let one call ask for 2^40 tensors.
  const int64_t split_size = size == 0 ? 0 : (size - 1) / chunks + 1;
  return native::split(self, split_size, dim);
}

}  // namespace tg::native
