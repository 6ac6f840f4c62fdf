// CUDA kernels of max_pool2d, avg_pool2d, their backward operators, im2col and col2im
// (pooling_ops.h). A thread per element written: outputs for the forwards and im2col (the
// window computations of pooling_window.h, shared with the CPU), input elements for
// avg_pool2d's backward and col2im, which gather what covers them in the CPU's order so that
// their sums round as the CPU's do. max_pool2d's backward follows the stored indices, which
// can point anywhere in the plane, so it scatters with atomicAdd into a float (double) buffer.
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

template <typename T>
__global__ void max_pool2d_kernel(const T* in, T* out, int64_t* indices, Pool2dShape s) {
  const int64_t out_plane = s.out_height * s.out_width;
  TG_GRID_STRIDE_LOOP(e, s.planes * out_plane) {
    const int64_t p = e / out_plane, oy = (e % out_plane) / s.out_width, ox = e % s.out_width;
    const T* plane = in + p * s.height * s.width;
    acc_t<T> best;
    int64_t best_index;
    max_pool_window(s, oy, ox, [plane](int64_t offset) { return convert<acc_t<T>>(plane[offset]); }, best,
                    best_index);
    out[e] = convert<T>(best);
    indices[e] = best_index;
  }
}

template <typename T>
__global__ void max_pool2d_backward_kernel(const T* grad, const int64_t* indices, acc_t<T>* sums, Pool2dShape s,
                                           IndexErrorRecord* errors) {
  const int64_t out_plane = s.out_height * s.out_width;
  TG_GRID_STRIDE_LOOP(e, s.planes * out_plane) {
    if (!index_in_bounds(errors, IndexedOp::kMaxPool2dBackward, indices[e], s.height * s.width, s.width)) continue;
    atomicAdd(sums + (e / out_plane) * s.height * s.width + indices[e], convert<acc_t<T>>(grad[e]));
  }
}

template <typename T>
__global__ void avg_pool2d_kernel(const T* in, T* out, Pool2dShape s, AvgPoolDivisor d) {
  const int64_t out_plane = s.out_height * s.out_width;
  TG_GRID_STRIDE_LOOP(e, s.planes * out_plane) {
    const int64_t p = e / out_plane, oy = (e % out_plane) / s.out_width, ox = e % s.out_width;
    const T* plane = in + p * s.height * s.width;
    out[e] = convert<T>(avg_pool_window<acc_t<T>>(s, oy, ox, d.count_include_pad, d.has_override, d.divisor_override,
                                                  [plane](int64_t offset) { return convert<acc_t<T>>(plane[offset]); }));
  }
}

// The outputs o whose window along one dim may cover input position h: [first, last].
struct OutputRange {
  int64_t first, last;
};

__device__ inline OutputRange covering_outputs(int64_t h, int64_t kernel, int64_t stride, int64_t pad, int64_t outs) {
  const int64_t reach = h + pad - kernel;  // o * stride - pad + kernel > h  <=>  o * stride > reach
  const int64_t first = reach < 0 ? 0 : reach / stride + 1;
  const int64_t last = (h + pad) / stride;  // o * stride - pad <= h
  return {first, last < outs - 1 ? last : outs - 1};
}

template <typename T>
__global__ void avg_pool2d_backward_kernel(const T* grad, T* grad_input, Pool2dShape s, AvgPoolDivisor d) {
  using Acc = acc_t<T>;
  const int64_t plane_size = s.height * s.width;
  TG_GRID_STRIDE_LOOP(e, s.planes * plane_size) {
    const int64_t p = e / plane_size, h = (e % plane_size) / s.width, w = e % s.width;
    const OutputRange ys = covering_outputs(h, s.kernel[0], s.stride[0], s.padding[0], s.out_height);
    const OutputRange xs = covering_outputs(w, s.kernel[1], s.stride[1], s.padding[1], s.out_width);
    const T* g = grad + p * s.out_height * s.out_width;
    Acc sum = 0;
    for (int64_t oy = ys.first; oy <= ys.last; ++oy) {
      const Window wy = pooling_window(oy, s.kernel[0], s.stride[0], s.padding[0], s.height);
      if (h < clip_begin(wy) || h >= clip_end(wy, s.height)) continue;
      for (int64_t ox = xs.first; ox <= xs.last; ++ox) {
        const Window wx = pooling_window(ox, s.kernel[1], s.stride[1], s.padding[1], s.width);
        if (w < clip_begin(wx) || w >= clip_end(wx, s.width)) continue;
        const int64_t divisor =
            avg_pool_divisor(wy, wx, s.height, s.width, d.count_include_pad, d.has_override, d.divisor_override);
        sum += convert<Acc>(g[oy * s.out_width + ox]) / static_cast<Acc>(divisor);
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

void launch_max_pool2d(ScalarType dtype, const void* in, void* out, int64_t* indices, const Pool2dShape& s) {
  launch_floating(dtype, "max_pool2d", s.planes * s.out_height * s.out_width, [&](auto tag, unsigned grid, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    launch_kernel(max_pool2d_kernel<T>, grid, kElementwiseBlock, 0, stream, static_cast<const T*>(in),
                  static_cast<T*>(out), indices, s);
  });
}

void launch_max_pool2d_backward(ScalarType dtype, const void* grad, const int64_t* indices, void* sums,
                                const Pool2dShape& s) {
  // Adds through atomicAdd: see Note [Deterministic atomic sums].
  const LaunchShape shape = atomic_sum_shape(s.planes * s.out_height * s.out_width, true);
  launch_floating(dtype, "max_pool2d_backward", s.planes * s.out_height * s.out_width,
                  [&](auto tag, unsigned, cudaStream_t stream) {
                    using T = typename decltype(tag)::type;
                    launch_kernel(max_pool2d_backward_kernel<T>, shape.grid, shape.block, 0, stream,
                                  static_cast<const T*>(grad), indices, static_cast<acc_t<T>*>(sums), s,
                                  index_error_record(current_device()));
                  });
}

void launch_avg_pool2d(ScalarType dtype, const void* in, void* out, const Pool2dShape& s, AvgPoolDivisor divisor) {
  launch_floating(dtype, "avg_pool2d", s.planes * s.out_height * s.out_width,
                  [&](auto tag, unsigned grid, cudaStream_t stream) {
                    using T = typename decltype(tag)::type;
                    launch_kernel(avg_pool2d_kernel<T>, grid, kElementwiseBlock, 0, stream, static_cast<const T*>(in),
                                  static_cast<T*>(out), s, divisor);
                  });
}

void launch_avg_pool2d_backward(ScalarType dtype, const void* grad, void* grad_input, const Pool2dShape& s,
                                AvgPoolDivisor divisor) {
  launch_floating(dtype, "avg_pool2d_backward", s.planes * s.height * s.width,
                  [&](auto tag, unsigned grid, cudaStream_t stream) {
                    using T = typename decltype(tag)::type;
                    launch_kernel(avg_pool2d_backward_kernel<T>, grid, kElementwiseBlock, 0, stream,
                                  static_cast<const T*>(grad), static_cast<T*>(grad_input), s, divisor);
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
