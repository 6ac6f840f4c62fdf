// CPU kernels of tril and triu over the last two dims of a batch of matrices: element (i, j)
// is kept when j - i <= diagonal (tril) or j - i >= diagonal (triu), and zero otherwise.
#include "NativeFunctions.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "dtype_dispatch.h"

namespace tg {

namespace {

template <bool kLower>
void triangle_out(const char* op, const Tensor& self, int64_t diagonal, const Tensor& out) {
  if (out.numel() == 0) return;
  const int64_t rows = out.size(-2), cols = out.size(-1);
  const int64_t batches = out.numel() / (rows * cols);
  TG_DISPATCH_ALL_TYPES(out.scalar_type(), op, [&] {
    const Tensor input = cpu::contiguous_as(self, out.scalar_type());  // out itself when in place
    const scalar_t* src = input.data_ptr<scalar_t>();
    scalar_t* dst = out.data_ptr<scalar_t>();
    const scalar_t zero = cpu::convert<scalar_t>(0);
    for (int64_t b = 0; b < batches; ++b) {
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t at = (b * rows + i) * cols;
        for (int64_t j = 0; j < cols; ++j) {
          const bool keep = kLower ? j - i <= diagonal : j - i >= diagonal;
          dst[at + j] = keep ? src[at + j] : zero;
        }
      }
    }
  });
}

}  // namespace

void native::tril_out_cpu(const Tensor& self, int64_t diagonal, const Tensor& out) {
  triangle_out<true>("tril", self, diagonal, out);
}

void native::triu_out_cpu(const Tensor& self, int64_t diagonal, const Tensor& out) {
  triangle_out<false>("triu", self, diagonal, out);
}

}  // namespace tg
