// Note [Kernel-shift convolution]
// A stride-1 convolution is a sum of matrix products, one per kernel offset (i, j):
//
//   out[o, y, x] = sum_{i, j} sum_c W[o, c, i, j] * in[c, y + i * dH, x + j * dW]
//
// Seen at the input's row pitch (position p = y * W_in + x), in[c, p + i * dH * W_in + j * dW]
// is the input plane [C, H_in * W_in] read from an offset: a matrix BLAS reads in place (row
// stride H_in * W_in). So out at that pitch, [O, (H_out - 1) * W_in + W_out], is
// sum_{i, j} W_ij [O, C] @ in shifted by (i * dH * W_in + j * dW), and the positions with
// x >= W_out (which wrap into the next row) are dropped when it is copied into out. This
// replaces im2col, which wrote kH * kW copies of the input (3.4 MB per image for 32 channels
// of 56 x 56 and a 3 x 3 kernel, more than L2) that BLAS then packed again.
// The products run over strips of kStripPositions positions, so that a strip's result (32 KB
// for 64 output channels) stays in L1 across the kH * kW accumulating products; each product
// is then small enough for OpenBLAS's small-matrix kernel, which reads its operands unpacked.
// Strips of 128 against 256: the same time for 32 channels at 56 x 56, 15% less for 64 padded
// channels at 28 x 28. Padding is applied per image
// into a scratch plane. The sum runs over channels first, then offsets: the result may differ
// from im2col's in the last bits.
//
// Note [One product per strip]
// With tensorgen's own sgemm (Note [Choosing the float product]) a strip is one product, not
// kH * kW: its k runs over (channel, offset) pairs, and row (c, q) of its b is channel c's plane
// read from offset q, found through a table of row starts (sgemm_avx512_row_table). Its a is
// the weight as stored, [O / G, C / G * kH * kW]. The strip's result is then written once, not
// read and written back kH * kW times, and each register tile runs over k = C / G * kH * kW
// (288 for 32 channels and 3 x 3), not C / G, so its fixed costs are spread over 9 times the
// work: docs/performance.md, "Session 13", has the figures. The sum then runs over channel
// and offset together, in the weight's order: the result differs from the per-offset
// products (OpenBLAS's path, TG_CPU_GEMM=openblas) in the last bits.
#include "cpu/conv_kernel_shifts.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <type_traits>
#include <vector>

#include "NativeFunctions.h"
#include "cpu/blas_gemm.h"
#include "cpu/copy.h"
#include "cpu/launch.h"
#include "cpu/parallel.h"
#include "cpu/sgemm_avx512.h"
#include "cpu/sgemm_choice.h"


namespace tg::cpu {

namespace {

#ifdef TG_HAVE_BLAS

constexpr int64_t kStripPositions = 128;

struct ShiftGeometry {
  int64_t batch, channels, height, width;  // input
  int64_t out_channels, out_height, out_width, kernel_h, kernel_w;
  int64_t pad_h, pad_w, dil_h, dil_w, groups;
};

// The whole forward on raw memory (one launch): input [N, C, H, W], weight [O, C / G, kH, kW]
// and out [N, O, H_out, W_out], all contiguous.
template <typename T>
void run_shifts(const ShiftGeometry& s, const T* input, const T* weight, T* out) {
  const int64_t cg = s.channels / s.groups, og = s.out_channels / s.groups, area = s.kernel_h * s.kernel_w;
  const int64_t in_h = s.height + 2 * s.pad_h, in_w = s.width + 2 * s.pad_w, plane = in_h * in_w;
  const int64_t positions = (s.out_height - 1) * in_w + s.out_width;  // out at the input's pitch
  // Where kernel offset q = i * kW + j reads the (padded) plane, relative to the output position.
  const auto shift_of = [&](int64_t q) { return (q / s.kernel_w) * s.dil_h * in_w + (q % s.kernel_w) * s.dil_w; };
  // See Note [One product per strip]: row c * area + q of the product is channel c shifted by
  // offset q, so that its a is the weight itself, [O / G, C / G * kH * kW] row-major.
  const bool one_product = std::is_same_v<T, float> && cpu_gemm() == CpuGemm::kTensorgen;
  std::vector<int64_t> shifted_rows(one_product ? static_cast<size_t>(cg * area) : 0);
  for (int64_t c = 0; one_product && c < cg; ++c) {
    for (int64_t q = 0; q < area; ++q) shifted_rows[static_cast<size_t>(c * area + q)] = c * plane + shift_of(q);
  }
  // Otherwise one product per offset, with the weight by offset: shifted[g][i * kW + j] is
  // W_g[:, :, i, j], an [O / G, C / G] matrix.
  std::vector<T> shifted(one_product ? 0 : static_cast<size_t>(s.out_channels * cg * area));
  for (int64_t o = 0; !one_product && o < s.out_channels; ++o) {
    const int64_t g = o / og;
    for (int64_t c = 0; c < cg; ++c) {
      for (int64_t q = 0; q < area; ++q) {
        shifted[static_cast<size_t>(((g * area + q) * og + o % og) * cg + c)] = weight[(o * cg + c) * area + q];
      }
    }
  }
  const bool padded = s.pad_h > 0 || s.pad_w > 0;
  // Images in parallel, each range with its own scratch: an image's sums are the same on any
  // thread, and its products are too small to be worth cutting.
  parallel_for(s.batch, 1, [&](int64_t first, int64_t last) {
    std::vector<T> padded_plane(padded ? static_cast<size_t>(cg * plane) : 0, T(0));
    std::vector<T> pitched(static_cast<size_t>(og * positions));
    for (int64_t n = first; n < last; ++n) {
      for (int64_t g = 0; g < s.groups; ++g) {
        const T* image = input + (n * s.channels + g * cg) * s.height * s.width;
        if (padded) {  // the borders stay zero from the first image on
          for (int64_t c = 0; c < cg; ++c) {
            for (int64_t y = 0; y < s.height; ++y) {
              std::memcpy(&padded_plane[static_cast<size_t>(c * plane + (y + s.pad_h) * in_w + s.pad_w)],
                          image + (c * s.height + y) * s.width, static_cast<size_t>(s.width) * sizeof(T));
            }
          }
          image = padded_plane.data();
        }
        for (int64_t p = 0; p < positions; p += kStripPositions) {
          const int64_t strip = std::min(kStripPositions, positions - p);
          if constexpr (std::is_same_v<T, float>) {
            if (one_product) {
              sgemm_avx512_row_table(og, strip, cg * area, 1.0f, weight + g * og * cg * area, cg * area, image + p,
                                     shifted_rows.data(), 0.0f, &pitched[static_cast<size_t>(p)], positions);
              continue;
            }
          }
          for (int64_t q = 0; q < area; ++q) {
            const int64_t shift = shift_of(q);
            blas_gemm(false, false, og, strip, cg, T(1), &shifted[static_cast<size_t>((g * area + q) * og * cg)], cg,
                      image + shift + p, plane, q == 0 ? T(0) : T(1), &pitched[static_cast<size_t>(p)], positions);
          }
        }
        T* dst = out + (n * s.out_channels + g * og) * s.out_height * s.out_width;
        for (int64_t o = 0; o < og; ++o) {
          for (int64_t y = 0; y < s.out_height; ++y) {
            std::memcpy(dst + (o * s.out_height + y) * s.out_width,
                        &pitched[static_cast<size_t>(o * positions + y * in_w)],
                        static_cast<size_t>(s.out_width) * sizeof(T));
          }
        }
      }
    }
  });
}

#endif  // TG_HAVE_BLAS

}  // namespace

bool conv2d_by_kernel_shifts(const Tensor& input, const Tensor& weight, IntArrayRef padding, IntArrayRef dilation,
                             int64_t groups, const Tensor& out) {
#ifdef TG_HAVE_BLAS
  const ScalarType dtype = input.scalar_type();
  if (!input.is_cpu() || (dtype != kFloat && dtype != kDouble) ||
      weight.scalar_type() != dtype || input.dim() != 4 || weight.dim() != 4) {
    return false;
  }
  const ShiftGeometry s{input.size(0),  input.size(1), input.size(2),  input.size(3),  weight.size(0),
                        out.size(2),    out.size(3),   weight.size(2), weight.size(3), padding[0],
                        padding[1],     dilation[0],   dilation[1],    groups};
  const int64_t cg = s.channels / groups;
  if (s.kernel_h * s.kernel_w > 1 && cg < kMinShiftChannels) return false;
  const int64_t in_plane = (s.height + 2 * s.pad_h) * (s.width + 2 * s.pad_w);
  if (in_plane > INT_MAX || s.out_channels * cg > INT_MAX) return false;  // BLAS takes int sizes
  LaunchesOnly launches_only;  // see Note [Launch replay]
  if (out.numel() == 0) return true;
  const Tensor x = contiguous_as(input, dtype), w = contiguous_as(weight, dtype);
  const std::array<char*, 3> operands{static_cast<char*>(out.data_ptr()), static_cast<char*>(x.data_ptr()),
                                      static_cast<char*>(w.data_ptr())};
  launch(operands, [s, dtype](const std::array<char*, 3>& p) {
    if (dtype == kFloat) {
      run_shifts(s, reinterpret_cast<const float*>(p[1]), reinterpret_cast<const float*>(p[2]),
                 reinterpret_cast<float*>(p[0]));
    } else {
      run_shifts(s, reinterpret_cast<const double*>(p[1]), reinterpret_cast<const double*>(p[2]),
                 reinterpret_cast<double*>(p[0]));
    }
  });
  return true;
#else
  (void)input, (void)weight, (void)padding, (void)dilation, (void)groups, (void)out;
  return false;
#endif
}

}  // namespace tg::cpu
