// IValueConvert<T>: the two directions between a C++ argument or return type of an operator
// and an IValue on a Stack. One specialization per schema type (see codegen/cpp_types.py for
// the schema -> C++ table); `to` may return a view into the IValue, valid while it lives.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/ivalue.h"

namespace tg::detail {

template <typename T, typename Enable = void>
struct IValueConvert;

// Types stored directly in an IValue and read back by value.
#define TG_IVALUE_CONVERT_BY_VALUE(Type, accessor)                 \
  template <>                                                      \
  struct IValueConvert<Type> {                                     \
    static IValue from(Type v) { return IValue(v); }               \
    static Type to(const IValue& v) { return v.accessor(); }       \
  };
TG_IVALUE_CONVERT_BY_VALUE(int64_t, toInt)
TG_IVALUE_CONVERT_BY_VALUE(double, toDouble)
TG_IVALUE_CONVERT_BY_VALUE(bool, toBool)
TG_IVALUE_CONVERT_BY_VALUE(Device, toDevice)
TG_IVALUE_CONVERT_BY_VALUE(Scalar, toScalar)
TG_IVALUE_CONVERT_BY_VALUE(ScalarType, toScalarType)
TG_IVALUE_CONVERT_BY_VALUE(Layout, toLayout)
TG_IVALUE_CONVERT_BY_VALUE(MemoryFormat, toMemoryFormat)
TG_IVALUE_CONVERT_BY_VALUE(IntArrayRef, toIntList)
TG_IVALUE_CONVERT_BY_VALUE(ArrayRef<double>, toDoubleList)
TG_IVALUE_CONVERT_BY_VALUE(TensorList, toTensorList)
TG_IVALUE_CONVERT_BY_VALUE(std::string_view, toStringView)
#undef TG_IVALUE_CONVERT_BY_VALUE

template <>
struct IValueConvert<Tensor> {
  static IValue from(const Tensor& v) { return IValue(v); }
  static const Tensor& to(const IValue& v) { return v.toTensor(); }
};

template <>
struct IValueConvert<std::string> {
  static IValue from(const std::string& v) { return IValue(v); }
  static std::string to(const IValue& v) { return std::string(v.toStringView()); }
};

template <>
struct IValueConvert<std::vector<int64_t>> {
  static IValue from(const std::vector<int64_t>& v) { return IValue(v); }
  static std::vector<int64_t> to(const IValue& v) { return v.toIntList().vec(); }
};

template <>
struct IValueConvert<std::vector<Tensor>> {
  static IValue from(const std::vector<Tensor>& v) { return IValue(v); }
  static std::vector<Tensor> to(const IValue& v) { return v.toTensorList().vec(); }
};

template <size_t N>
struct IValueConvert<std::array<bool, N>> {
  static IValue from(const std::array<bool, N>& v) { return IValue(std::vector<bool>(v.begin(), v.end())); }
  static std::array<bool, N> to(const IValue& v) {
    const std::vector<bool>& items = v.toBoolList();
    TG_CHECK_VALUE(items.size() == N, "[IValue] expected a bool[", N, "], got ", items.size(), " values");
    std::array<bool, N> out{};
    for (size_t i = 0; i < N; ++i) out[i] = items[i];
    return out;
  }
};

// Tensor?[]: a list whose elements are None or a Tensor.
template <>
struct IValueConvert<std::vector<std::optional<Tensor>>> {
  static IValue from(const std::vector<std::optional<Tensor>>& v) {
    std::vector<IValue> items;
    items.reserve(v.size());
    for (const auto& t : v) items.emplace_back(t);
    return IValue(std::move(items));
  }
  static std::vector<std::optional<Tensor>> to(const IValue& v) {
    std::vector<std::optional<Tensor>> out;
    if (v.isTensorList()) {  // a list without None may come as a Tensor[] (the conformance samples)
      for (const Tensor& t : v.toTensorList()) out.emplace_back(t);
      return out;
    }
    for (const IValue& item : v.toList()) {
      out.push_back(item.isNone() ? std::nullopt : std::optional<Tensor>(item.toTensor()));
    }
    return out;
  }
};

template <>
struct IValueConvert<OptionalIntArrayRef> {
  static IValue from(OptionalIntArrayRef v) { return v ? IValue(*v) : IValue(); }
  static OptionalIntArrayRef to(const IValue& v) {
    if (v.isNone()) return std::nullopt;
    return v.toIntList();
  }
};

// T? for every T above: None <-> nullopt.
template <typename T>
struct IValueConvert<std::optional<T>> {
  static IValue from(const std::optional<T>& v) { return v ? IValueConvert<T>::from(*v) : IValue(); }
  static std::optional<T> to(const IValue& v) {
    if (v.isNone()) return std::nullopt;
    return std::optional<T>(IValueConvert<T>::to(v));
  }
};

template <typename T>
using ConvertFor = IValueConvert<std::decay_t<T>>;

template <typename T>
struct is_tuple : std::false_type {};
template <typename... T>
struct is_tuple<std::tuple<T...>> : std::true_type {};

// Pushes a kernel's return value(s): a tuple pushes each element, void pushes nothing.
template <typename Ret>
void push_outputs(Ret&& value, Stack* stack) {
  using R = std::decay_t<Ret>;
  if constexpr (is_tuple<R>::value) {
    std::apply([&](auto&&... items) { (stack->push_back(ConvertFor<decltype(items)>::from(items)), ...); }, value);
  } else {
    stack->push_back(ConvertFor<R>::from(value));
  }
}

template <typename Ret>
constexpr size_t num_outputs() {
  if constexpr (std::is_void_v<Ret>) {
    return 0;
  } else if constexpr (is_tuple<Ret>::value) {
    return std::tuple_size_v<Ret>;
  } else {
    return 1;
  }
}

[[noreturn]] void boxed_output_count_error(size_t expected, size_t actual);

// Pops a kernel's return value(s) off the stack, the inverse of push_outputs.
template <typename Ret>
Ret pop_outputs(Stack* stack) {
  constexpr size_t n = num_outputs<Ret>();
  if (stack->size() != n) boxed_output_count_error(n, stack->size());
  if constexpr (n == 0) {
    return;
  } else if constexpr (is_tuple<Ret>::value) {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return Ret(IValueConvert<std::tuple_element_t<I, Ret>>::to((*stack)[I])...);
    }(std::make_index_sequence<n>());
  } else {
    return IValueConvert<Ret>::to((*stack)[0]);
  }
}

}  // namespace tg::detail
