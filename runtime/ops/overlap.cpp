#include "ops/overlap.h"

#include <algorithm>
#include <cstdint>

#include "core/dim_vector.h"
#include "core/error.h"

namespace tg {

bool is_non_overlapping_and_dense(const TensorImpl& t) {
  if (t.is_contiguous()) return true;
  // Dims sorted by stride (size-1 dims carry no information) must be contiguous in that order.
  DimVector order;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) != 1) order.push_back(d);
  }
  std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    return t.stride(x) < t.stride(y) || (t.stride(x) == t.stride(y) && t.size(x) < t.size(y));
  });
  int64_t expected = 1;
  for (int64_t d : order) {
    if (t.stride(d) != expected) return false;
    expected *= t.size(d);
  }
  return true;
}

MemOverlap has_internal_overlap(const TensorImpl& t) {
  if (t.numel() <= 1) return MemOverlap::No;
  if (is_non_overlapping_and_dense(t)) return MemOverlap::No;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) > 1 && t.stride(d) == 0) return MemOverlap::Yes;
  }
  return MemOverlap::TooHard;
}

MemOverlapStatus get_overlap_status(const TensorImpl& a, const TensorImpl& b) {
  if (&a == &b) return MemOverlapStatus::Full;
  if (a.numel() == 0 || b.numel() == 0) return MemOverlapStatus::No;
  if (a.storage().get() != b.storage().get()) return MemOverlapStatus::No;
  if (!is_non_overlapping_and_dense(a) || !is_non_overlapping_and_dense(b)) return MemOverlapStatus::TooHard;
  const auto* a_begin = static_cast<const char*>(a.data());
  const auto* b_begin = static_cast<const char*>(b.data());
  const auto* a_end = a_begin + a.numel() * static_cast<int64_t>(a.itemsize());
  const auto* b_end = b_begin + b.numel() * static_cast<int64_t>(b.itemsize());
  if (a_begin == b_begin && a_end == b_end) {
    return a.strides() == b.strides() ? MemOverlapStatus::Full : MemOverlapStatus::Partial;
  }
  if (a_begin < b_end && b_begin < a_end) return MemOverlapStatus::Partial;
  return MemOverlapStatus::No;
}

void assert_no_internal_overlap(std::string_view op, const Tensor& t) {
  TG_CHECK_VALUE(has_internal_overlap(*t.unsafeGetTensorImpl()) != MemOverlap::Yes, "[", op,
           "] unsupported operation: more than one element of the written-to tensor refers to a single memory "
           "location (sizes ", t.sizes(), ", strides ", t.strides(),
           "). Please clone() the tensor before performing the operation.");
}

void assert_no_partial_overlap(std::string_view op, const Tensor& written, const Tensor& read) {
  TG_CHECK_VALUE(get_overlap_status(*written.unsafeGetTensorImpl(), *read.unsafeGetTensorImpl()) !=
               MemOverlapStatus::Partial,
           "[", op, "] unsupported operation: some elements of the input tensor and the written-to tensor refer to "
           "a single memory location (written sizes ", written.sizes(), ", strides ", written.strides(),
           "; input sizes ", read.sizes(), ", strides ", read.strides(),
           "). Please clone() the tensor before performing the operation.");
}

void check_writes(std::string_view op, std::initializer_list<const Tensor*> written,
                  std::initializer_list<const Tensor*> read) {
  for (const Tensor* w : written) {
    if (w == nullptr || !w->defined()) continue;
    assert_no_internal_overlap(op, *w);
    for (const Tensor* r : read) {
      if (r == nullptr || !r->defined()) continue;
      assert_no_partial_overlap(op, *w, *r);
    }
  }
}

void check_writes(std::string_view op, TensorList written) {
  for (const Tensor& w : written) {
    if (w.defined()) assert_no_internal_overlap(op, w);
  }
}

}  // namespace tg
