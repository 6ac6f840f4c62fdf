// ElementwiseLaunch: the host side of a CUDA elementwise kernel (the role of ATen's
// TensorIterator, small). From the output and the inputs, each with the dtype the kernel
// reads it in, it builds the kernel's ElementwiseArgs (cuda/elementwise_args.h):
//   - inputs broadcast to out's shape (stride 0), and converted on the device first when
//     their dtype is not the kernel's;
//   - CPU zero-dim inputs (wrapped numbers, CPU scalars) passed by value;
//   - an input that overlaps out other than as the very same elements copied first;
//   - dims of size 1 dropped and adjacent dims merged where every operand allows it;
//   - out replaced by a contiguous temporary of the kernel's dtype when it has another one,
//     which finish() copies back.
// The tensors it makes live as long as it does. They are freed on the current stream after
// the launch was queued on it, so the allocator reuses their memory only after the kernel.
#pragma once

#include <initializer_list>
#include <string_view>
#include <vector>

#include "core/tensor.h"
#include "cuda/elementwise_args.h"

namespace tg::cuda {

class ElementwiseLaunch {
 public:
  struct Input {
    const Tensor& tensor;
    ScalarType dtype;  // what the kernel reads it as
  };

  // Throws tg::Error for more than kMaxElementwiseDims dims left after merging.
  ElementwiseLaunch(std::string_view op, const Tensor& out, ScalarType out_dtype, std::initializer_list<Input> inputs);

  const ElementwiseArgs& args() const { return args_; }
  // Copies the result into out when the kernel wrote a temporary.
  void finish();

 private:
  Tensor out_;
  Tensor written_;               // out itself, or the temporary the kernel writes
  std::vector<Tensor> inputs_;   // as the kernel reads them (converted or copied ones kept alive)
  ElementwiseArgs args_;
};

// The dtype a kernel producing `dtype` computes in: float32 instead of float16 or bfloat16
// when an input is a tensor (not a CPU scalar) of another dtype, whose elements then convert
// straight to float as on the CPU instead of being rounded to 16 bits first; else `dtype`.
ScalarType kernel_dtype(ScalarType dtype, const Tensor& out, std::initializer_list<const Tensor*> inputs);

// The value of a Scalar argument, for the kernels.
ScalarValue scalar_value(const Scalar& value);

// `t` itself when it is contiguous and of `dtype`, else a contiguous copy converted to it, on
// t's device: what a kernel that reads raw memory of one element type takes its inputs as.
Tensor contiguous_as(const Tensor& t, ScalarType dtype);

// `t` as a contiguous int64 tensor on `device` (indices checked on the CPU, moved to the GPU).
Tensor int64_on(const Tensor& t, Device device);

// True for a zero-dim CPU tensor used with a CUDA output: it goes to the kernel by value.
bool is_cpu_scalar(const Tensor& input, const Tensor& out);

}  // namespace tg::cuda
