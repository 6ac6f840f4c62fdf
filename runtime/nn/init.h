// tg::nn::init: in-place initialisers of parameters, as LibTorch's torch::nn::init. Each runs
// without recording autograd history and returns its tensor. fan_in / fan_out of a weight
// [out, in, k...] are in * prod(k) and out * prod(k).
#pragma once

#include <tuple>
#include <variant>

#include "core/scalar.h"
#include "core/tensor.h"

namespace tg {
namespace enumtype {
struct kLinear {};
struct kConv1D {};
struct kConv2D {};
struct kConv3D {};
struct kSigmoid {};
struct kTanh {};
struct kReLU {};
struct kLeakyReLU {};
struct kFanIn {};
struct kFanOut {};
}  // namespace enumtype

inline constexpr enumtype::kLinear kLinear{};
inline constexpr enumtype::kConv1D kConv1D{};
inline constexpr enumtype::kConv2D kConv2D{};
inline constexpr enumtype::kConv3D kConv3D{};
inline constexpr enumtype::kSigmoid kSigmoid{};
inline constexpr enumtype::kTanh kTanh{};
inline constexpr enumtype::kReLU kReLU{};
inline constexpr enumtype::kLeakyReLU kLeakyReLU{};
inline constexpr enumtype::kFanIn kFanIn{};
inline constexpr enumtype::kFanOut kFanOut{};

namespace nn::init {

using NonlinearityType = std::variant<enumtype::kLinear, enumtype::kConv1D, enumtype::kConv2D, enumtype::kConv3D,
                                      enumtype::kSigmoid, enumtype::kTanh, enumtype::kReLU, enumtype::kLeakyReLU>;
using FanModeType = std::variant<enumtype::kFanIn, enumtype::kFanOut>;

// The recommended gain for a nonlinearity (PyTorch's table); `param` is LeakyReLU's slope.
double calculate_gain(NonlinearityType nonlinearity, double param = 0.01);

// (fan_in, fan_out) of a tensor with at least two dimensions.
std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor constant_(Tensor tensor, Scalar value);
Tensor ones_(Tensor tensor);
Tensor zeros_(Tensor tensor);
Tensor eye_(Tensor matrix);
Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
// U(-a, a) with a = gain sqrt(6 / (fan_in + fan_out)); N(0, gain^2 2 / (fan_in + fan_out)).
Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
Tensor xavier_normal_(Tensor tensor, double gain = 1.0);
// U(-b, b) with b = gain(nonlinearity, a) sqrt(3 / fan); N(0, (gain / sqrt(fan))^2).
Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanModeType mode = kFanIn,
                        NonlinearityType nonlinearity = kLeakyReLU);
Tensor kaiming_normal_(Tensor tensor, double a = 0, FanModeType mode = kFanIn,
                       NonlinearityType nonlinearity = kLeakyReLU);
// A (semi-)orthogonal matrix: rows (or columns, whichever are fewer) orthonormal, times gain;
// tensors of more than two dimensions are flattened to [size(0), rest].
Tensor orthogonal_(Tensor tensor, double gain = 1.0);

// LibTorch's default initialisation of a convolution (plain or transposed): weight
// kaiming_uniform_ with a = sqrt(5), bias (if defined) uniform in +-1/sqrt(fan_in of weight).
void conv_default_(const Tensor& weight, const Tensor& bias);

}  // namespace nn::init
}  // namespace tg
