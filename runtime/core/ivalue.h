// IValue: one boxed value on a Stack, the currency of boxed calls and fallbacks.
// It holds None, a Tensor, a double, an int64, a bool, a string, a Device or a list; the
// enum-like schema types (ScalarType, Layout, MemoryFormat) travel as Int and a Scalar as
// Double/Int/Bool, as in PyTorch, so a kernel's schema says how to read them back.
// Invariant: tag_ names the live member of payload_; heap members are ref-counted.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/array_ref.h"
#include "core/device.h"
#include "core/intrusive_ptr.h"
#include "core/scalar.h"
#include "core/tensor.h"
#include "core/tensor_options.h"

namespace tg {

class IValue;

namespace detail {
template <typename T>
struct ListStorage final : RefCounted {
  explicit ListStorage(std::vector<T> v) : items(std::move(v)) {}
  std::vector<T> items;
};
struct StringStorage final : RefCounted {
  explicit StringStorage(std::string v) : value(std::move(v)) {}
  std::string value;
};
}  // namespace detail

class IValue {
 public:
  enum class Tag : uint8_t { None, Tensor, Double, Int, Bool, String, Device, IntList, DoubleList, BoolList, TensorList, GenericList };

  IValue() : tag_(Tag::None) { payload_.i = 0; }
  IValue(std::nullopt_t) : IValue() {}  // NOLINT
  IValue(Tensor t) : tag_(Tag::Tensor) { new (&payload_.tensor) Tensor(std::move(t)); }  // NOLINT
  IValue(double v) : tag_(Tag::Double) { payload_.d = v; }   // NOLINT
  IValue(int64_t v) : tag_(Tag::Int) { payload_.i = v; }     // NOLINT
  IValue(int v) : IValue(static_cast<int64_t>(v)) {}         // NOLINT
  IValue(bool v) : tag_(Tag::Bool) { payload_.i = v; }       // NOLINT
  IValue(std::string v);                                     // NOLINT
  IValue(std::string_view v) : IValue(std::string(v)) {}     // NOLINT
  IValue(const char* v) : IValue(std::string(v)) {}          // NOLINT
  IValue(Device d) : tag_(Tag::Device) { payload_.i = encode(d); }  // NOLINT
  IValue(const Scalar& s);                                   // NOLINT
  IValue(ScalarType t) : IValue(static_cast<int64_t>(t)) {}  // NOLINT
  IValue(Layout l) : IValue(static_cast<int64_t>(l)) {}      // NOLINT
  IValue(MemoryFormat f) : IValue(static_cast<int64_t>(f)) {}  // NOLINT
  IValue(std::vector<int64_t> v);                            // NOLINT
  IValue(IntArrayRef v) : IValue(v.vec()) {}                 // NOLINT
  IValue(OptionalIntArrayRef v) : IValue() {                 // NOLINT
    if (v) *this = IValue(*v);
  }
  IValue(std::vector<double> v);                             // NOLINT
  IValue(ArrayRef<double> v) : IValue(v.vec()) {}            // NOLINT
  IValue(std::vector<bool> v);                               // NOLINT
  IValue(std::vector<Tensor> v);                             // NOLINT
  IValue(TensorList v) : IValue(v.vec()) {}                  // NOLINT
  IValue(std::vector<IValue> v);                             // NOLINT
  template <typename T>
    requires std::is_constructible_v<IValue, const T&>
  IValue(const std::optional<T>& v) : IValue() {  // NOLINT
    if (v.has_value()) *this = IValue(*v);
  }

  IValue(const IValue& other) : tag_(other.tag_) { copy_payload(other); }
  IValue(IValue&& other) noexcept : tag_(other.tag_) { move_payload(std::move(other)); }
  // Both assignments take `other` before releasing this value's payload: `other` may live
  // inside it (v = v.toList()[0]), and releasing first would free it mid-assignment.
  IValue& operator=(const IValue& other) {
    if (this != &other) *this = IValue(other);
    return *this;
  }
  IValue& operator=(IValue&& other) noexcept {
    if (this != &other) {
      IValue taken(std::move(other));
      destroy();
      tag_ = taken.tag_;
      move_payload(std::move(taken));
    }
    return *this;
  }
  ~IValue() { destroy(); }

  Tag tag() const noexcept { return tag_; }
  // The schema-language name of what this holds ("Tensor", "int", "int[]", ...), for errors.
  std::string_view type_name() const noexcept;

  bool isNone() const noexcept { return tag_ == Tag::None; }
  bool isTensor() const noexcept { return tag_ == Tag::Tensor; }
  bool isDouble() const noexcept { return tag_ == Tag::Double; }
  bool isInt() const noexcept { return tag_ == Tag::Int; }
  bool isBool() const noexcept { return tag_ == Tag::Bool; }
  bool isString() const noexcept { return tag_ == Tag::String; }
  bool isDevice() const noexcept { return tag_ == Tag::Device; }
  bool isScalar() const noexcept { return isDouble() || isInt() || isBool(); }
  bool isIntList() const noexcept { return tag_ == Tag::IntList; }
  bool isDoubleList() const noexcept { return tag_ == Tag::DoubleList; }
  bool isBoolList() const noexcept { return tag_ == Tag::BoolList; }
  bool isTensorList() const noexcept { return tag_ == Tag::TensorList; }
  bool isList() const noexcept { return tag_ == Tag::GenericList; }

  // Each accessor throws tg::TypeError naming what it expected and what it holds.
  const Tensor& toTensor() const&;
  Tensor toTensor() &&;
  double toDouble() const;
  int64_t toInt() const;
  bool toBool() const;
  std::string_view toStringView() const;
  Device toDevice() const;
  Scalar toScalar() const;
  ScalarType toScalarType() const;
  Layout toLayout() const { return static_cast<Layout>(toInt()); }
  MemoryFormat toMemoryFormat() const { return static_cast<MemoryFormat>(toInt()); }
  IntArrayRef toIntList() const;  // a view into this IValue
  ArrayRef<double> toDoubleList() const;
  const std::vector<bool>& toBoolList() const;
  TensorList toTensorList() const;
  ArrayRef<IValue> toList() const;

 private:
  static int64_t encode(Device d) { return static_cast<int64_t>(d.type()) * 256 + static_cast<uint8_t>(d.index()); }
  bool holds_object() const noexcept { return tag_ >= Tag::String && tag_ != Tag::Device; }
  [[noreturn]] void wrong_type(std::string_view expected) const;
  void copy_payload(const IValue& other);
  void move_payload(IValue&& other) noexcept;
  void destroy() noexcept;
  template <typename T>
  const detail::ListStorage<T>& list() const {
    return *static_cast<const detail::ListStorage<T>*>(payload_.object);
  }

  Tag tag_;
  union Payload {
    Payload() : i(0) {}
    ~Payload() {}
    int64_t i;
    double d;
    Tensor tensor;
    RefCounted* object;  // StringStorage or ListStorage<T>, one counted reference
  } payload_;
};

using Stack = std::vector<IValue>;

std::ostream& operator<<(std::ostream& out, const IValue& v);

}  // namespace tg
