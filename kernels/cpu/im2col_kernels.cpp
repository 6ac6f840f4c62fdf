// CPU kernels of im2col and col2im (geometry in im2col_shape.h). im2col copies each kernel
// offset's shifted image into one row of the columns; col2im adds the rows back. Inner loops
// run along output columns x, reading (writing) the image with stride sW.
#include <vector>

#include "NativeFunctions.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "dtype_dispatch.h"
#include "im2col_shape.h"
#include "nn_rules.h"

namespace tg {

namespace {

// Calls f(row of the columns, image offset (c, row, column) or -1 when in the padding,
// position index) for one image of `channels` channels.
template <typename F>
void for_each_column_entry(const Im2colShape& s, int64_t channels, const F& f) {
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t i = 0; i < s.kernel[0]; ++i) {
      for (int64_t j = 0; j < s.kernel[1]; ++j) {
        const int64_t row = (c * s.kernel[0] + i) * s.kernel[1] + j;
        for (int64_t y = 0; y < s.out_height; ++y) {
          const int64_t image_row = y * s.stride[0] - s.padding[0] + i * s.dilation[0];
          const bool row_inside = image_row >= 0 && image_row < s.height;
          for (int64_t x = 0; x < s.out_width; ++x) {
            const int64_t image_column = x * s.stride[1] - s.padding[1] + j * s.dilation[1];
            const bool inside = row_inside && image_column >= 0 && image_column < s.width;
            f(row, inside ? (c * s.height + image_row) * s.width + image_column : -1, y * s.out_width + x);
          }
        }
      }
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
    for (int64_t n = 0; n < batch; ++n) {
      const scalar_t* image = input.data_ptr<scalar_t>() + n * channels * s.height * s.width;
      scalar_t* columns = out.data_ptr<scalar_t>() + n * rows * s.positions();
      for_each_column_entry(s, channels, [&](int64_t row, int64_t offset, int64_t position) {
        columns[row * s.positions() + position] = offset < 0 ? zero : image[offset];
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
    std::vector<T> image(static_cast<size_t>(channels * s.height * s.width));
    for (int64_t n = 0; n < batch; ++n) {
      std::fill(image.begin(), image.end(), T(0));
      const scalar_t* columns = input.data_ptr<scalar_t>() + n * rows * s.positions();
      for_each_column_entry(s, channels, [&](int64_t row, int64_t offset, int64_t position) {
        if (offset >= 0) image[offset] += cpu::convert<T>(columns[row * s.positions() + position]);
      });
      cpu::store_row(static_cast<char*>(out.data_ptr()) + n * static_cast<int64_t>(image.size()) * out.element_size(),
                     out.element_size(), out.scalar_type(), image.data(), static_cast<int64_t>(image.size()));
    }
  });
  return out;
}

}  // namespace tg
