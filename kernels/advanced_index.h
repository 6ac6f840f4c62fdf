// AdvancedIndex: the plan of one advanced-indexing call (index.Tensor, index_put_), shared by
// the CPU and CUDA kernels so that both accept the same indices and raise the same errors.
// For index tensors i_0 .. i_{k-1} on dims d_0 < .. < d_{k-1} of self, broadcast to shape B:
//   R = self's sizes with the d_j replaced by B: where d_0 was when the d_j are adjacent,
//       else B first and the other dims after it (LibTorch's rule);
//   result[p] = self[offset(p)] for every position p of R, where
//       offset(p) = sum_r p_r * self_strides[r] + sum_j wrap_j(i_j[p]) * indexed_strides[j],
//       self_strides[r] = 0 on B's dims, wrap_j(v) = v < 0 ? v + indexed_sizes[j] : v;
//   index_put_ writes self[offset(p)] = values[p] (or += with accumulate), values broadcast to R.
// Bool (and uint8) masks become int64 positions (their nonzero() columns) here, on the host:
// the result's size depends on their values, so a CUDA mask is read back (as in LibTorch).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/dim_vector.h"
#include "core/tensor.h"

namespace tg {

struct AdvancedIndex {
  DimVector result_sizes;      // R
  DimVector self_strides;      // per dim of R: self's stride along it, 0 on B's dims
  std::vector<Tensor> indices;  // i_j: contiguous int64 on self's device, shapes before broadcasting
  std::vector<DimVector> index_strides;  // per i_j, per dim of R: its stride there (0 outside B, and where broadcast)
  DimVector indexed_dims;      // d_j
  DimVector indexed_sizes;     // self.size(d_j): values lie in [-size, size)
  DimVector indexed_strides;   // self.stride(d_j)
};

AdvancedIndex make_advanced_index(const char* op, const Tensor& self, const std::vector<std::optional<Tensor>>& indices);

// Raises "[op] index v is out of bounds for dimension d with size s" for the first value out of
// [-size, size); reads the values, so the CPU kernels call it (the CUDA ones check on the device).
void check_advanced_index_bounds(const char* op, const AdvancedIndex& plan);

// index_put_: values of self's dtype and device that broadcast to R.
void check_index_put_values(const Tensor& self, const Tensor& values, const AdvancedIndex& plan);

}  // namespace tg
