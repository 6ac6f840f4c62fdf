// tg::indexing: LibTorch's C++ indexing front end. A TensorIndex is one entry of
// t.index({...}) / t.index_put_({...}, v): an integer (select), a Slice (slice), None
// (unsqueeze), Ellipsis ("the dims no other entry names"), a bool (unsqueeze, then keep all or
// nothing), or a tensor (advanced indexing: index.Tensor / index_put_). Basic entries give
// views; tensor entries gather. See docs/frontend-core.md.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>

#include "tensorgen/ops.h"

namespace tg::indexing {

constexpr int64_t INDEX_MIN = std::numeric_limits<int64_t>::min();
constexpr int64_t INDEX_MAX = std::numeric_limits<int64_t>::max();

// start:stop:step, each optional, as Python's slice.
class Slice final {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt);
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  std::optional<int64_t> start_;
  std::optional<int64_t> stop_;
  int64_t step_;
};

std::ostream& operator<<(std::ostream& stream, const Slice& slice);

struct EllipsisIndexType final {
  EllipsisIndexType() = default;
};
inline constexpr EllipsisIndexType Ellipsis{};
// `None` as in LibTorch: a new dim of size 1.
inline constexpr std::nullopt_t None = std::nullopt;

class TensorIndex final {
 public:
  enum class Type { None, Ellipsis, Integer, Boolean, Slice, Tensor };

  TensorIndex(std::nullopt_t) : type_(Type::None) {}                 // NOLINT: implicit as in LibTorch
  TensorIndex(EllipsisIndexType) : type_(Type::Ellipsis) {}          // NOLINT
  TensorIndex(const char* text);                                     // NOLINT: "..." only
  TensorIndex(bool value) : type_(Type::Boolean), boolean_(value) {}  // NOLINT
  template <typename T, typename = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>>
  TensorIndex(T integer) : type_(Type::Integer), integer_(static_cast<int64_t>(integer)) {}  // NOLINT
  TensorIndex(Slice slice) : type_(Type::Slice), slice_(slice) {}    // NOLINT
  TensorIndex(Tensor tensor) : type_(Type::Tensor), tensor_(std::move(tensor)) {}  // NOLINT

  Type type() const { return type_; }
  bool is_none() const { return type_ == Type::None; }
  bool is_ellipsis() const { return type_ == Type::Ellipsis; }
  bool is_integer() const { return type_ == Type::Integer; }
  bool is_boolean() const { return type_ == Type::Boolean; }
  bool is_slice() const { return type_ == Type::Slice; }
  bool is_tensor() const { return type_ == Type::Tensor; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Type type_;
  int64_t integer_ = 0;
  bool boolean_ = false;
  Slice slice_;
  Tensor tensor_;
};

std::ostream& operator<<(std::ostream& stream, const TensorIndex& index);

// What Tensor::index and Tensor::index_put_ do (tensor_indexing.cpp).
Tensor get_item(const Tensor& self, ArrayRef<TensorIndex> indices);
void set_item(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& value);

}  // namespace tg::indexing
