// CUDA kernels of pooling (max and average, sliding and adaptive, 2-d and 3-d), their backward
// operators, im2col and col2im (pooling_ops.h). A thread per element written: outputs for the
// forwards and im2col (the window computations of pooling_window.h, shared with the CPU),
// input elements for average pooling's backward and col2im, which gather what covers them in
// the CPU's order so that their sums round as the CPU's do. Max pooling's backward follows the
// stored indices, which can point anywhere in the plane, so it scatters with atomicAdd into a
// float (double) buffer.
#include <cstdint>

#include "cuda/cuda_device.h"
#include "cuda/elementwise.cuh"
#include "cuda/index_check.cuh"
#include "cuda/launch.cuh"
#include "cuda/pooling_ops.h"
#include "pooling_window.h"

namespace tg::cuda {

namespace {

template <typename T>
using acc_t = opmath_t<T>;

#define TG_GRID_STRIDE_LOOP(e, total)                                                                          \
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < (total);                  \
       e += static_cast<int64_t>(gridDim.x) * blockDim.x)

// The windows of output cell c.
struct CellWindows {
  Window z, y, x;
};

__device__ inline CellWindows cell_windows(const PoolShape& s, const PoolCell& c) {
  return {pooling_window(s, 0, c.z), pooling_window(s, 1, c.y), pooling_window(s, 2, c.x)};
}

template <typename T>
__global__ void max_pool_kernel(const T* in, T* out, int64_t* indices, PoolShape s) {
  TG_GRID_STRIDE_LOOP(e, s.planes * s.output_plane()) {
    const PoolCell c = pool_cell(e, s.output);
    const CellWindows w = cell_windows(s, c);
    const T* plane = in + c.plane * s.input_plane();
    acc_t<T> best;
    int64_t best_index;  // in a register: the window loop updates it at each new maximum
    max_pool_window(s, w.z, w.y, w.x, [plane](int64_t offset) { return convert<acc_t<T>>(plane[offset]); }, best,
                    best_index);
    out[e] = convert<T>(best);
    indices[e] = best_index;
  }
}

template <typename T>
__global__ void max_pool_backward_kernel(const T* grad, const int64_t* indices, acc_t<T>* sums, PoolShape s,
                                         IndexedOp op, int64_t spatial_dims, IndexErrorRecord* errors) {
  const int64_t out_plane = s.output_plane(), in_plane = s.input_plane();
  TG_GRID_STRIDE_LOOP(e, s.planes * out_plane) {
    if (!index_in_bounds(errors, op, indices[e], in_plane, spatial_dims)) continue;
    atomicAdd(sums + (e / out_plane) * in_plane + indices[e], convert<acc_t<T>>(grad[e]));
  }
}

template <typename T>
__global__ void avg_pool_kernel(const T* in, T* out, PoolShape s, AvgPoolDivisor d) {
  TG_GRID_STRIDE_LOOP(e, s.planes * s.output_plane()) {
    const PoolCell c = pool_cell(e, s.output);
    const CellWindows w = cell_windows(s, c);
    const T* plane = in + c.plane * s.input_plane();
    const auto load = [plane](int64_t offset) { return convert<acc_t<T>>(plane[offset]); };
    out[e] = convert<T>(avg_pool_window<acc_t<T>>(s, w.z, w.y, w.x, d, load));
  }
}

__device__ inline bool covers(Window w, int64_t n, int64_t h) { return h >= clip_begin(w) && h < clip_end(w, n); }

// Each input element gathers the shares of the outputs whose windows cover it, in the order
// (oz, oy, ox) the CPU kernel adds them.
template <typename T>
__global__ void avg_pool_backward_kernel(const T* grad, T* grad_input, PoolShape s, AvgPoolDivisor d) {
  using Acc = acc_t<T>;
  TG_GRID_STRIDE_LOOP(e, s.planes * s.input_plane()) {
    const PoolCell c = pool_cell(e, s.input);
    const OutputRange zs = covering_outputs(s, 0, c.z), ys = covering_outputs(s, 1, c.y),
                      xs = covering_outputs(s, 2, c.x);
    const T* g = grad + c.plane * s.output_plane();
    Acc sum = 0;
    for (int64_t oz = zs.first; oz <= zs.last; ++oz) {
      const Window wz = pooling_window(s, 0, oz);
      if (!covers(wz, s.input[0], c.z)) continue;
      for (int64_t oy = ys.first; oy <= ys.last; ++oy) {
        const Window wy = pooling_window(s, 1, oy);
        if (!covers(wy, s.input[1], c.y)) continue;
        for (int64_t ox = xs.first; ox <= xs.last; ++ox) {
          const Window wx = pooling_window(s, 2, ox);
          if (!covers(wx, s.input[2], c.x)) continue;
          sum += convert<Acc>(g[(oz * s.output[1] + oy) * s.output[2] + ox]) /
                 static_cast<Acc>(avg_pool_divisor(s, wz, wy, wx, d));
        }
      }
    }
    grad_input[e] = convert<T>(sum);
  }
}

template <typename T>
__global__ void im2col_kernel(const T* image, T* columns, Im2colShape s, int64_t batch, int64_t channels) {
  const int64_t positions = s.positions(), rows = channels * s.kernel_area();
  TG_GRID_STRIDE_LOOP(e, batch * rows * positions) {
    const int64_t position = e % positions, row = (e / positions) % rows, n = e / (positions * rows);
    const int64_t j = row % s.kernel[1], i = (row / s.kernel[1]) % s.kernel[0], c = row / s.kernel_area();
    const int64_t y = position / s.out_width, x = position % s.out_width;
    const int64_t image_row = y * s.stride[0] - s.padding[0] + i * s.dilation[0];
    const int64_t image_column = x * s.stride[1] - s.padding[1] + j * s.dilation[1];
    const bool inside = image_row >= 0 && image_row < s.height && image_column >= 0 && image_column < s.width;
    columns[e] = inside ? image[((n * channels + c) * s.height + image_row) * s.width + image_column] : convert<T>(0);
  }
}

template <typename T>
__global__ void col2im_kernel(const T* columns, T* image, Im2colShape s, int64_t batch, int64_t channels) {
  using Acc = acc_t<T>;
  const int64_t positions = s.positions(), rows = channels * s.kernel_area(), plane = s.height * s.width;
  TG_GRID_STRIDE_LOOP(e, batch * channels * plane) {
    const int64_t w = e % s.width, h = (e / s.width) % s.height, c = (e / plane) % channels, n = e / (plane * channels);
    const T* column_block = columns + n * rows * positions;
    Acc sum = 0;
    for (int64_t i = 0; i < s.kernel[0]; ++i) {
      const int64_t y_stride = h + s.padding[0] - i * s.dilation[0];  // y * stride[0]
      if (y_stride < 0 || y_stride % s.stride[0] != 0 || y_stride / s.stride[0] >= s.out_height) continue;
      const int64_t y = y_stride / s.stride[0];
      for (int64_t j = 0; j < s.kernel[1]; ++j) {
        const int64_t x_stride = w + s.padding[1] - j * s.dilation[1];
        if (x_stride < 0 || x_stride % s.stride[1] != 0 || x_stride / s.stride[1] >= s.out_width) continue;
        const int64_t row = (c * s.kernel[0] + i) * s.kernel[1] + j;
        sum += convert<Acc>(column_block[row * positions + y * s.out_width + x_stride / s.stride[1]]);
      }
    }
    image[e] = convert<T>(sum);
  }
}

#undef TG_GRID_STRIDE_LOOP

// Runs launch(TypeTag<T>{}) for a floating dtype (`op` names it in the error otherwise) when
// there is work, then checks the launch.
template <typename Launch>
void launch_floating(ScalarType dtype, const char* op, int64_t work, Launch&& launch) {
  dispatch_device_dtype<kFloatingTypes>(dtype, op, [&](auto tag) {
    if (work == 0) return;
    launch(tag, elementwise_grid(work), getCurrentCUDAStream());
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace

void launch_max_pool(const char* op, ScalarType dtype, const void* in, void* out, int64_t* indices,
                     const PoolShape& s) {
  launch_floating(dtype, op, s.planes * s.output_plane(), [&](auto tag, unsigned grid, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    launch_kernel(max_pool_kernel<T>, grid, kElementwiseBlock, 0, stream, static_cast<const T*>(in),
                  static_cast<T*>(out), indices, s);
  });
}

void launch_max_pool_backward(const char* op, ScalarType dtype, const void* grad, const int64_t* indices, void* sums,
                              const PoolShape& s, IndexedOp indexed_op, int64_t spatial_dims) {
  // Adds through atomicAdd: see Note [Deterministic atomic sums].
  const LaunchShape shape = atomic_sum_shape(s.planes * s.output_plane(), true);
  launch_floating(dtype, op, s.planes * s.output_plane(), [&](auto tag, unsigned, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    launch_kernel(max_pool_backward_kernel<T>, shape.grid, shape.block, 0, stream, static_cast<const T*>(grad),
                  indices, static_cast<acc_t<T>*>(sums), s, indexed_op, spatial_dims,
                  index_error_record(current_device()));
  });
}

void launch_avg_pool(const char* op, ScalarType dtype, const void* in, void* out, const PoolShape& s,
                     AvgPoolDivisor divisor) {
  launch_floating(dtype, op, s.planes * s.output_plane(), [&](auto tag, unsigned grid, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    launch_kernel(avg_pool_kernel<T>, grid, kElementwiseBlock, 0, stream, static_cast<const T*>(in),
                  static_cast<T*>(out), s, divisor);
  });
}

void launch_avg_pool_backward(const char* op, ScalarType dtype, const void* grad, void* grad_input, const PoolShape& s,
                              AvgPoolDivisor divisor) {
  launch_floating(dtype, op, s.planes * s.input_plane(), [&](auto tag, unsigned grid, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    launch_kernel(avg_pool_backward_kernel<T>, grid, kElementwiseBlock, 0, stream, static_cast<const T*>(grad),
                  static_cast<T*>(grad_input), s, divisor);
  });
}

void launch_im2col(ScalarType dtype, const void* image, void* columns, const Im2colShape& s, int64_t batch,
                   int64_t channels) {
  launch_floating(dtype, "im2col", batch * channels * s.kernel_area() * s.positions(),
                  [&](auto tag, unsigned grid, cudaStream_t stream) {
                    using T = typename decltype(tag)::type;
                    launch_kernel(im2col_kernel<T>, grid, kElementwiseBlock, 0, stream, static_cast<const T*>(image),
                                  static_cast<T*>(columns), s, batch, channels);
                  });
}

void launch_col2im(ScalarType dtype, const void* columns, void* image, const Im2colShape& s, int64_t batch,
                   int64_t channels) {
  launch_floating(dtype, "col2im", batch * channels * s.height * s.width,
                  [&](auto tag, unsigned grid, cudaStream_t stream) {
                    using T = typename decltype(tag)::type;
                    launch_kernel(col2im_kernel<T>, grid, kElementwiseBlock, 0, stream, static_cast<const T*>(columns),
                                  static_cast<T*>(image), s, batch, channels);
                  });
}

}  // namespace tg::cuda
