// matmul and linear as decompositions into mm, bmm and addmm, with PyTorch's rules for the
// operands' dims (see Note [matmul by dims]).
#include "NativeFunctions.h"
#include "ops/structured.h"
#include "shape_utils.h"
#include "tensorgen/ops.h"

namespace tg::native {

namespace {

int64_t product(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// Note [matmul by dims]
// With dim1 = self.dim() and dim2 = other.dim() (both >= 1):
//   1 x 1: the dot product, a 0-dim tensor;
//   2 x 1, 1 x 2: matrix-vector products, the vector made a matrix by unsqueeze and the
//     result squeezed back;
//   2 x 2: mm;
//   >= 3 x 1 or 2: self's leading dims fold into its rows, one mm, and the result is
//     unfolded (no copy when self is contiguous);
//   otherwise: the dims before the last two are batch dims (a 1-d operand has none); they
//     broadcast, both operands are expanded to the common batch shape and flattened to
//     3-d, and one bmm computes every product. The result has the broadcast batch dims,
//     then n (unless self is 1-d) and p (unless other is 1-d).
Tensor batched_matmul(const Tensor& self, const Tensor& other) {
  const int64_t dim1 = self.dim();
  const int64_t dim2 = other.dim();
  const int64_t n = dim1 > 1 ? self.size(-2) : 1;
  const int64_t m1 = self.size(-1);
  const int64_t m2 = dim2 > 1 ? other.size(-2) : other.size(-1);
  const int64_t p = dim2 > 1 ? other.size(-1) : 1;
  TG_CHECK(m1 == m2, "[matmul] shapes ", self.sizes(), " and ", other.sizes(), " cannot be multiplied (", m1,
           " columns against ", m2, " rows)");
  const IntArrayRef batch1 = self.sizes().slice(0, static_cast<size_t>(std::max<int64_t>(dim1 - 2, 0)));
  const IntArrayRef batch2 = other.sizes().slice(0, static_cast<size_t>(std::max<int64_t>(dim2 - 2, 0)));
  const DimVector batch = infer_broadcast_size(batch1, batch2, "matmul");
  const int64_t batch_numel = product(batch);

  DimVector lhs_shape(batch);
  lhs_shape.push_back(n);
  lhs_shape.push_back(m1);
  DimVector rhs_shape(batch);
  rhs_shape.push_back(m2);
  rhs_shape.push_back(p);
  Tensor lhs = (dim1 == 1 ? self.unsqueeze(0) : self).expand(lhs_shape).reshape({batch_numel, n, m1});
  Tensor rhs = (dim2 == 1 ? other.unsqueeze(1) : other).expand(rhs_shape).reshape({batch_numel, m2, p});

  DimVector output_shape(batch);
  if (dim1 > 1) output_shape.push_back(n);
  if (dim2 > 1) output_shape.push_back(p);
  return lhs.bmm(rhs).view(output_shape);
}

}  // namespace

Tensor matmul(const Tensor& self, const Tensor& other) {
  const int64_t dim1 = self.dim();
  const int64_t dim2 = other.dim();
  TG_CHECK(dim1 > 0 && dim2 > 0, "[matmul] both arguments to matmul need to be at least 1D, but they are ", dim1,
           "D and ", dim2, "D");
  if (dim1 == 1 && dim2 == 1) {
    TG_CHECK(self.size(0) == other.size(0), "[matmul] inconsistent tensor size, expected tensor [", self.size(0),
             "] and src [", other.size(0), "] to have the same number of elements, but got ", self.size(0), " and ",
             other.size(0), " elements respectively");
    return self.unsqueeze(0).mm(other.unsqueeze(1)).view({});
  }
  if (dim1 == 2 && dim2 == 1) return self.mm(other.unsqueeze(1)).squeeze(1);
  if (dim1 == 1 && dim2 == 2) return self.unsqueeze(0).mm(other).squeeze(0);
  if (dim1 == 2 && dim2 == 2) return self.mm(other);
  if (dim1 >= 3 && dim2 <= 2) {
    DimVector output_shape(self.sizes().slice(0, static_cast<size_t>(dim1 - 1)));
    Tensor folded = self.reshape({product(output_shape), self.size(-1)});
    if (dim2 == 2) output_shape.push_back(other.size(1));
    return folded.mm(dim2 == 1 ? other.unsqueeze(1) : other).view(output_shape);
  }
  return batched_matmul(self, other);
}

Tensor matmul_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  Tensor result = tg::matmul(self, other);
  TG_CHECK(out.device() == result.device(), "[matmul.out] expected out on ", result.device(), ", got out on ",
           out.device());
  TG_CHECK_TYPE(can_cast(result.scalar_type(), out.scalar_type()), "[matmul.out] result type ",
                result.scalar_type(), " can't be cast to the desired output type ", out.scalar_type());
  if (out.sizes() != result.sizes()) resize_output(out, result.sizes());
  out.copy_(result);
  return out;
}

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  const bool has_bias = bias.has_value() && bias->defined();
  if (input.dim() == 2 && has_bias) return tg::addmm(*bias, input, weight.t());
  Tensor output = tg::matmul(input, weight.t());
  return has_bias ? tg::add(output, *bias) : output;
}

}  // namespace tg::native
