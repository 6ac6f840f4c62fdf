// Meta functions of the linalg family (schemas/linalg.yaml): matrix products.
#include "NativeFunctions.h"
#include "shape_utils.h"

namespace tg {

namespace {

void check_ndim(const char* op, const char* name, const Tensor& t, int64_t ndim) {
  TG_CHECK_VALUE(t.dim() == ndim, "[", op, "] ", name, " must be a ", ndim, "-D tensor, got a ", t.dim(),
                 "-D tensor of shape ", t.sizes());
}

// "2x3" for shape [2, 3].
std::string shape_text(IntArrayRef sizes) {
  std::string text;
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? "x" : "") + std::to_string(sizes[i]);
  return text;
}

// mat1 [n, m] @ mat2 [m, p] -> [n, p]; the operands must share a dtype.
TensorMeta matrix_product_meta(const char* op, const Tensor& mat1, const Tensor& mat2) {
  check_ndim(op, "mat1", mat1, 2);
  check_ndim(op, "mat2", mat2, 2);
  TG_CHECK_VALUE(mat1.sizes()[1] == mat2.sizes()[0], "[", op, "] mat1 and mat2 shapes cannot be multiplied (",
                 shape_text(mat1.sizes()), " and ", shape_text(mat2.sizes()), ")");
  TG_CHECK_TYPE(mat1.scalar_type() == mat2.scalar_type(), "[", op,
                "] expected mat1 and mat2 to have the same dtype, but got: ", mat1.scalar_type(),
                " != ", mat2.scalar_type());
  return TensorMeta{DimVector{mat1.sizes()[0], mat2.sizes()[1]}, mat1.scalar_type()};
}

}  // namespace

TensorMeta meta::mm_out(const Tensor& self, const Tensor& mat2) { return matrix_product_meta("mm", self, mat2); }

TensorMeta meta::bmm_out(const Tensor& self, const Tensor& mat2) {
  check_ndim("bmm", "batch1", self, 3);
  check_ndim("bmm", "batch2", mat2, 3);
  TG_CHECK_VALUE(self.sizes()[0] == mat2.sizes()[0], "[bmm] expected batch1 and batch2 to have the same batch size, ",
                 "got ", shape_text(self.sizes()), " and ", shape_text(mat2.sizes()));
  TG_CHECK_VALUE(self.sizes()[2] == mat2.sizes()[1], "[bmm] batch1 and batch2 shapes cannot be multiplied (",
                 shape_text(self.sizes()), " and ", shape_text(mat2.sizes()), ")");
  TG_CHECK_TYPE(self.scalar_type() == mat2.scalar_type(), "[bmm] expected batch1 and batch2 to have the same dtype, ",
                "but got: ", self.scalar_type(), " != ", mat2.scalar_type());
  return TensorMeta{DimVector{self.sizes()[0], self.sizes()[1], mat2.sizes()[2]}, self.scalar_type()};
}

// self broadcasts to the product's shape [n, p].
TensorMeta meta::addmm_out(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& /*beta*/,
                           const Scalar& /*alpha*/) {
  TensorMeta meta = matrix_product_meta("addmm", mat1, mat2);
  TG_CHECK_TYPE(self.scalar_type() == meta.dtype, "[addmm] expected self and mat1 to have the same dtype, but got: ",
                self.scalar_type(), " != ", meta.dtype);
  expand_strides(self.sizes(), self.strides(), meta.sizes, "addmm");
  return meta;
}

}  // namespace tg
