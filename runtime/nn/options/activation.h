// Options of the activation modules and functions, in LibTorch's names and defaults.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/scalar_type.h"
#include "core/arg.h"

namespace tg::nn {

struct ReLUOptions {
  ReLUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  TG_ARG(bool, inplace);
};

struct LeakyReLUOptions {
  TG_ARG(double, negative_slope) = 1e-2;
  TG_ARG(bool, inplace) = false;
};

struct ELUOptions {
  TG_ARG(double, alpha) = 1.0;
  TG_ARG(bool, inplace) = false;
};

struct GELUOptions {
  TG_ARG(std::string, approximate) = "none";
};

struct SoftmaxOptions {
  SoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TG_ARG(int64_t, dim);
};

struct LogSoftmaxOptions {
  LogSoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TG_ARG(int64_t, dim);
};

struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  TG_ARG(int64_t, embed_dim);
  TG_ARG(int64_t, num_heads);
  TG_ARG(double, dropout) = 0.0;
  TG_ARG(bool, bias) = true;
  TG_ARG(bool, add_bias_kv) = false;
  TG_ARG(bool, add_zero_attn) = false;
  TG_ARG(int64_t, kdim);
  TG_ARG(int64_t, vdim);
};

namespace functional {
using ReLUFuncOptions = ReLUOptions;
using LeakyReLUFuncOptions = LeakyReLUOptions;
using ELUFuncOptions = ELUOptions;
using GELUFuncOptions = GELUOptions;

struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TG_ARG(int64_t, dim);
  TG_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};

struct LogSoftmaxFuncOptions {
  LogSoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TG_ARG(int64_t, dim);
  TG_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};
}  // namespace functional
}  // namespace tg::nn
