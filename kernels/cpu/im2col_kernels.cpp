// CPU kernels of im2col and col2im (geometry in im2col_shape.h). im2col copies each kernel
// offset's shifted image into one row of the columns; col2im adds the rows back. Inner loops
// run along output columns x, reading (writing) the image with stride sW.
#include <vector>

#include "NativeFunctions.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "dtype_dispatch.h"
#include "im2col_shape.h"

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
  TG_CHECK_VALUE((self.dim() == 3 || self.dim() == 4) && self.size(-3) > 0 && self.size(-2) > 0 && self.size(-1) > 0,
                 "[im2col] expected a non-empty 3D or 4D (batch mode) input, got shape ", self.sizes());
  const Im2colShape s = im2col_shape("im2col", self.size(-2), self.size(-1), kernel_size, dilation, padding, stride);
  const bool batched = self.dim() == 4;
  const int64_t batch = batched ? self.size(0) : 1, channels = self.size(-3);
  const int64_t rows = channels * s.kernel_area();
  DimVector sizes;
  if (batched) sizes.push_back(batch);
  sizes.push_back(rows);
  sizes.push_back(s.positions());
  Tensor out = make_empty_tensor(sizes, self.scalar_type(), self.device());
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
  TG_CHECK_VALUE(self.dim() == 2 || self.dim() == 3, "[col2im] expected a 2D or 3D (batch mode) input, got shape ",
                 self.sizes());
  TG_CHECK_VALUE(output_size.size() == 2, "[col2im] output_size must have 2 elements, got ", output_size);
  const Im2colShape s = im2col_shape("col2im", output_size[0], output_size[1], kernel_size, dilation, padding, stride);
  const bool batched = self.dim() == 3;
  const int64_t batch = batched ? self.size(0) : 1, rows = self.size(-2);
  TG_CHECK_VALUE(rows % s.kernel_area() == 0, "[col2im] expected size of input's dimension ", self.dim() - 2,
                 " to be divisible by the product of kernel_size, but got input.size(", self.dim() - 2, ")=", rows,
                 " and kernel_size=", kernel_size);
  TG_CHECK_VALUE(self.size(-1) == s.positions(), "[col2im] given output_size=", output_size, ", kernel_size=",
                 kernel_size, ", dilation=", dilation, ", padding=", padding, ", stride=", stride,
                 ", expected size of input's dimension ", self.dim() - 1,
                 " to match the calculated number of sliding blocks ",
                 s.out_height, " * ", s.out_width, " = ", s.positions(), ", but got input.size(", self.dim() - 1,
                 ")=", self.size(-1));
  const int64_t channels = rows / s.kernel_area();
  DimVector sizes;
  if (batched) sizes.push_back(batch);
  sizes.push_back(channels);
  sizes.push_back(s.height);
  sizes.push_back(s.width);
  Tensor out = make_empty_tensor(sizes, self.scalar_type(), self.device());
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
