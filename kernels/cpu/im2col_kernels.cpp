// CPU kernels of im2col and col2im (geometry in im2col_shape.h). im2col copies each kernel
// offset's shifted image into one row of the columns; col2im adds the rows back. The work is
// split into segments, one per (row of the columns, output row y): within a segment the
// positions [x_begin, x_end) read (write) the image with stride sW, a plain loop the compiler
// vectorises for sW = 1, and the positions outside it fall in the padding.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "NativeFunctions.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "cpu/parallel.h"
#include "dtype_dispatch.h"
#include "im2col_shape.h"
#include "nn_rules.h"

namespace tg {

namespace {

// One output row y of one row of the columns (channel c, kernel offset (i, j)).
struct Segment {
  int64_t row;           // the row of the columns: (c * kH + i) * kW + j
  int64_t position;      // the first position of the segment: y * out_width
  int64_t image_offset;  // the image index of position x is image_offset + x * sW (may start < 0)
  int64_t x_begin, x_end;  // the positions x inside the image
};

int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// Calls f(segment) for every segment of the rows [row_begin, row_end) of one image's columns.
template <typename F>
void for_each_segment(const Im2colShape& s, int64_t row_begin, int64_t row_end, const F& f) {
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t c = row / s.kernel_area(), i = row / s.kernel[1] % s.kernel[0], j = row % s.kernel[1];
    // image column of position x: x * sW + shift
    const int64_t shift = j * s.dilation[1] - s.padding[1];
    const int64_t x_begin = std::clamp<int64_t>(ceil_div(-shift, s.stride[1]), 0, s.out_width);
    const int64_t x_end = std::clamp<int64_t>(ceil_div(s.width - shift, s.stride[1]), x_begin, s.out_width);
    for (int64_t y = 0; y < s.out_height; ++y) {
      const int64_t image_row = y * s.stride[0] - s.padding[0] + i * s.dilation[0];
      const bool inside = image_row >= 0 && image_row < s.height;
      f(Segment{row, y * s.out_width, inside ? (c * s.height + image_row) * s.width + shift : -1,
                inside ? x_begin : 0, inside ? x_end : 0});
    }
  }
}

}  // namespace

Tensor native::im2col_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                          IntArrayRef stride) {
  const Im2colCall call = check_im2col(self, kernel_size, dilation, padding, stride);
  const Im2colShape& s = call.shape;
  const int64_t batch = call.batch, channels = call.channels, rows = channels * s.kernel_area();
  Tensor out = make_empty_tensor(call.out_sizes, self.scalar_type(), self.device());
  TG_DISPATCH_FLOATING_TYPES(self.scalar_type(), "im2col", [&] {
    const Tensor input = cpu::contiguous_as(self, self.scalar_type());
    const scalar_t zero = cpu::convert<scalar_t>(0);
    const int64_t positions = s.positions(), stride = s.stride[1];
    for (int64_t n = 0; n < batch; ++n) {
      const scalar_t* image = input.data_ptr<scalar_t>() + n * channels * s.height * s.width;
      scalar_t* columns = out.data_ptr<scalar_t>() + n * rows * positions;
      cpu::parallel_for(rows, std::max<int64_t>(1, cpu::kParallelGrain / positions), [&](int64_t begin, int64_t end) {
        for_each_segment(s, begin, end, [&](const Segment& g) {
          scalar_t* dst = columns + g.row * positions + g.position;
          std::fill(dst, dst + g.x_begin, zero);
          // Indices, not a shifted pointer: image_offset may be negative (left padding).
          const int64_t base = g.image_offset;
          if (stride == 1) {
            for (int64_t x = g.x_begin; x < g.x_end; ++x) dst[x] = image[base + x];
          } else {
            for (int64_t x = g.x_begin; x < g.x_end; ++x) dst[x] = image[base + x * stride];
          }
          std::fill(dst + g.x_end, dst + s.out_width, zero);
        });
      });
    }
  });
  return out;
}

Tensor native::col2im_cpu(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
                          IntArrayRef padding, IntArrayRef stride) {
  const Im2colCall call = check_col2im(self, output_size, kernel_size, dilation, padding, stride);
  const Im2colShape& s = call.shape;
  const int64_t batch = call.batch, channels = call.channels, rows = self.size(-2);
  Tensor out = make_empty_tensor(call.out_sizes, self.scalar_type(), self.device());
  TG_DISPATCH_FLOATING_TYPES(self.scalar_type(), "col2im", [&] {
    using T = opmath_t<scalar_t>;
    const Tensor input = cpu::contiguous_as(self, self.scalar_type());
    // Sums accumulate in opmath: straight in out when that is scalar_t (float, double), else
    // in a buffer converted into out afterwards.
    constexpr bool kInPlace = std::is_same_v<T, scalar_t>;
    const int64_t image_numel = channels * s.height * s.width;
    std::vector<T> buffer(kInPlace ? 0 : static_cast<size_t>(image_numel));
    for (int64_t n = 0; n < batch; ++n) {
      T* image = kInPlace ? reinterpret_cast<T*>(out.data_ptr<scalar_t>() + n * image_numel) : buffer.data();
      std::fill(image, image + image_numel, T(0));
      const scalar_t* columns = input.data_ptr<scalar_t>() + n * rows * s.positions();
      // Rows of different channels add into disjoint image planes: threads take whole channels.
      const int64_t area = s.kernel_area();
      cpu::parallel_for(channels, std::max<int64_t>(1, cpu::kParallelGrain / (area * s.positions())),
                        [&](int64_t c_begin, int64_t c_end) {
                          for_each_segment(s, c_begin * area, c_end * area, [&](const Segment& g) {
                            const scalar_t* src = columns + g.row * s.positions() + g.position;
                            for (int64_t x = g.x_begin; x < g.x_end; ++x) {
                              image[static_cast<size_t>(g.image_offset + x * s.stride[1])] += cpu::convert<T>(src[x]);
                            }
                          });
                        });
      if constexpr (!kInPlace) {
        cpu::store_row(static_cast<char*>(out.data_ptr()) + n * image_numel * out.element_size(), out.element_size(),
                       out.scalar_type(), image, image_numel);
      }
    }
  });
  return out;
}

}  // namespace tg
