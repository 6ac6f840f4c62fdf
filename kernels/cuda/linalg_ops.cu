// The fallback matrix product for integral dtypes: one thread per element of C, the operands
// staged through shared memory in 16x16 tiles, accumulating in int64.
#include "cuda/elementwise.cuh"
#include "cuda/launch.cuh"
#include "cuda/linalg_ops.h"
#include "scalar_math.h"

namespace tg::cuda {

namespace {

constexpr int kTile = 16;

template <typename T>
__global__ void gemm_kernel(int64_t m, int64_t n, int64_t k, MatrixArg a, MatrixArg b, MatrixArg c, int64_t alpha,
                            int64_t beta) {
  __shared__ int64_t a_tile[kTile][kTile];
  __shared__ int64_t b_tile[kTile][kTile];
  const T* a_data = static_cast<const T*>(a.data) + blockIdx.z * a.batch_stride;
  const T* b_data = static_cast<const T*>(b.data) + blockIdx.z * b.batch_stride;
  T* c_data = static_cast<T*>(c.data) + blockIdx.z * c.batch_stride;
  const int64_t row = static_cast<int64_t>(blockIdx.y) * kTile + threadIdx.y;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + threadIdx.x;
  int64_t sum = 0;
  for (int64_t p0 = 0; p0 < k; p0 += kTile) {
    const int64_t pa = p0 + threadIdx.x, pb = p0 + threadIdx.y;
    a_tile[threadIdx.y][threadIdx.x] =
        row < m && pa < k ? static_cast<int64_t>(a_data[row * a.row_stride + pa * a.col_stride]) : 0;
    b_tile[threadIdx.y][threadIdx.x] =
        pb < k && col < n ? static_cast<int64_t>(b_data[pb * b.row_stride + col * b.col_stride]) : 0;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kTile; ++p) sum = math::add(sum, math::mul(a_tile[threadIdx.y][p], b_tile[p][threadIdx.x]));
    __syncthreads();
  }
  if (row >= m || col >= n) return;
  T* out = c_data + row * c.row_stride + col * c.col_stride;
  int64_t value = math::mul(alpha, sum);
  if (beta != 0) value = math::add(value, math::mul(beta, static_cast<int64_t>(*out)));
  *out = static_cast<T>(value);
}

}  // namespace

void launch_gemm_fallback(ScalarType dtype, int64_t batch, int64_t m, int64_t n, int64_t k, const MatrixArg& a,
                          const MatrixArg& b, const MatrixArg& c, ScalarValue alpha, ScalarValue beta) {
  dispatch_device_dtype<kIntegralTypes>(dtype, "mm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (batch == 0 || m == 0 || n == 0) return;
    const dim3 grid(static_cast<unsigned int>((n + kTile - 1) / kTile), static_cast<unsigned int>((m + kTile - 1) / kTile),
                    static_cast<unsigned int>(batch));
    launch_kernel(gemm_kernel<T>, grid, dim3(kTile, kTile), 0, getCurrentCUDAStream(), m, n, k, a, b, c,
                  scalar_as<int64_t>(alpha), scalar_as<int64_t>(beta));
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace tg::cuda
