#include "random_arguments.h"

#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <typeinfo>
#include <vector>

namespace tg_fuzz {

namespace {

using tg::BaseType;
using tg::IValue;
using tg::Tensor;

constexpr int64_t kHuge = int64_t(1) << 50;  // never allocatable: fails at once
constexpr int64_t kLargestBackwardNumel = int64_t(1) << 24;
constexpr int64_t kSmallInts[] = {0, 1, 2, 3, 1, 2, -1, -2, 4, 5, 0, 1};
constexpr int64_t kEdgeInts[] = {kHuge, (int64_t(1) << 62) + 1, std::numeric_limits<int64_t>::max(),
                                 std::numeric_limits<int64_t>::min(), -100, -kHuge};
constexpr double kDoubles[] = {0.0,  1.0,   -1.0,  0.5,
                               2.5,  -3.0,  1e-5,  -0.0,
                               1e30, -1e30, std::numeric_limits<double>::quiet_NaN(),
                               std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
constexpr tg::ScalarType kDtypes[] = {tg::kFloat, tg::kFloat, tg::kFloat, tg::kDouble, tg::kLong, tg::kLong,
                                      tg::kInt,   tg::kBool,  tg::kHalf,  tg::kBFloat16, tg::kByte};
const char* const kStrings[] = {"mean", "sum", "none", "tanh", "", "reflect", "nonsense"};

int64_t random_int(ByteSource& source) {
  // One value in eight comes from the edges.
  return (source.byte() & 7) == 0 ? source.pick(kEdgeInts) : source.pick(kSmallInts);
}

double random_double(ByteSource& source) { return source.pick(kDoubles); }

std::vector<int64_t> random_shape(ByteSource& source, const ArgumentOptions& options) {
  std::vector<int64_t> shape(source.below(5));
  for (int64_t& s : shape) s = static_cast<int64_t>(source.below(5));
  if (options.zero_size_tensors) {
    if (shape.empty()) shape.push_back(0);
    shape[source.below(shape.size())] = 0;
  }
  return shape;
}

// A tensor of a random dtype, shape and layout. `previous` is the last tensor made for this
// call: some tensors are views of its storage, to exercise the overlap checks.
Tensor random_tensor(ByteSource& source, const ArgumentOptions& options, const Tensor& previous) {
  const uint8_t layout = source.byte() % 8;
  if (layout == 7 && previous.defined() && previous.numel() > 0 && previous.dim() > 0) {
    // A view of the previous tensor: the same, a narrowed one, or its transpose.
    const int64_t length = previous.size(0);
    switch (source.below(3)) {
      case 0:
        return previous;
      case 1:
        return previous.narrow(0, length > 1 ? 1 : 0, length > 1 ? length - 1 : length);
      default:
        return previous.dim() >= 2 ? previous.transpose(0, 1) : previous;
    }
  }
  const tg::ScalarType dtype = source.pick(kDtypes);
  std::vector<int64_t> shape = random_shape(source, options);
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  std::vector<double> values(static_cast<size_t>(numel));
  const bool integral = tg::is_integral_type(dtype, /*include_bool=*/true);
  for (double& v : values) {
    // Integral tensors hold small integers (valid indices, mostly); floating ones any double.
    v = integral ? static_cast<double>(static_cast<int64_t>(source.below(7)) - 1) : random_double(source);
  }
  Tensor t = tg::tensor(values, tg::TensorOptions().dtype(tg::kDouble)).reshape(shape).to(dtype);
  if (layout == 5 && t.dim() >= 2) t = t.transpose(0, t.dim() - 1);
  if (layout == 6 && t.dim() >= 1 && t.size(0) == 1) {
    std::vector<int64_t> expanded = t.sizes().vec();
    expanded[0] = 3;
    t = t.expand(expanded);  // stride 0: several elements share one location
  }
  if (layout == 4 && tg::is_floating_type(dtype)) t.requires_grad_();
  return t;
}

IValue random_scalar(ByteSource& source) {
  switch (source.below(3)) {
    case 0:
      return IValue(tg::Scalar(random_int(source)));
    case 1:
      return IValue(tg::Scalar(random_double(source)));
    default:
      return IValue(tg::Scalar(source.boolean()));
  }
}

IValue random_element(const tg::Argument& argument, BaseType base, ByteSource& source,
                      const ArgumentOptions& options, Tensor& previous) {
  switch (base) {
    case BaseType::Tensor: {
      previous = random_tensor(source, options, previous);
      return IValue(previous);
    }
    case BaseType::Int:
    case BaseType::SymInt:
      return IValue(random_int(source));
    case BaseType::Float:
      return IValue(random_double(source));
    case BaseType::Bool:
      return IValue(source.boolean());
    case BaseType::Str:
      if (argument.default_value && source.boolean()) {
        std::string text = *argument.default_value;
        if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'')) text = text.substr(1, text.size() - 2);
        return IValue(text);
      }
      return IValue(std::string(source.pick(kStrings)));
    case BaseType::Scalar:
      return random_scalar(source);
    case BaseType::ScalarType:
      // Mostly valid; sometimes Undefined or a value outside the enum.
      return IValue(static_cast<int64_t>(source.byte() % 16 == 0 ? 42 : source.below(tg::kNumScalarTypes + 1)));
    case BaseType::Device:
      return source.byte() % 4 == 0 ? IValue(tg::Device(tg::kCUDA, 0)) : IValue(tg::Device(tg::kCPU));
    case BaseType::Layout:
      return IValue(static_cast<int64_t>(source.byte() % 8 == 0 ? 5 : 0));
    case BaseType::MemoryFormat:
      return IValue(static_cast<int64_t>(source.below(4)));
    case BaseType::Generator:
      return IValue();
  }
  return IValue();
}

IValue random_value(const tg::Argument& argument, ByteSource& source, const ArgumentOptions& options,
                    Tensor& previous) {
  const tg::SchemaType& type = argument.type;
  if (type.base == BaseType::Generator || (type.optional && source.byte() % 4 == 0)) return IValue();
  if (!type.is_list) return random_element(argument, type.base, source, options, previous);
  const size_t length = type.list_size && source.byte() % 4 != 0 ? static_cast<size_t>(*type.list_size)
                                                                   : source.below(5);
  switch (type.base) {
    case BaseType::Int:
    case BaseType::SymInt: {
      std::vector<int64_t> values(length);
      for (int64_t& v : values) v = random_int(source);
      return IValue(values);
    }
    case BaseType::Float: {
      std::vector<double> values(length);
      for (double& v : values) v = random_double(source);
      return IValue(values);
    }
    case BaseType::Bool: {
      std::vector<bool> values(length);
      for (size_t i = 0; i < length; ++i) values[i] = source.boolean();
      return IValue(values);
    }
    case BaseType::Tensor: {
      if (type.element_optional) {
        std::vector<IValue> values;
        for (size_t i = 0; i < length; ++i) {
          values.push_back(source.byte() % 3 == 0 ? IValue() : random_element(argument, type.base, source, options,
                                                                                previous));
        }
        return IValue(values);
      }
      std::vector<Tensor> values;
      for (size_t i = 0; i < length; ++i) {
        previous = random_tensor(source, options, previous);
        values.push_back(previous);
      }
      return IValue(values);
    }
    default: {
      std::vector<IValue> values;
      for (size_t i = 0; i < length; ++i) values.push_back(random_element(argument, type.base, source, options, previous));
      return IValue(values);
    }
  }
}

}  // namespace

tg::Stack random_arguments(const tg::FunctionSchema& schema, ByteSource& source, const ArgumentOptions& options) {
  tg::Stack stack;
  Tensor previous;
  // Trailing arguments with defaults are sometimes left off, as a user of the boxed API may.
  size_t count = schema.arguments.size();
  if (source.byte() % 4 == 0) {
    while (count > 0 && schema.arguments[count - 1].default_value.has_value()) --count;
  }
  for (size_t i = 0; i < count; ++i) stack.push_back(random_value(schema.arguments[i], source, options, previous));
  return stack;
}

bool is_excluded(const std::string& /*operator_name*/) { return false; }

CallOutcome call_with_random_arguments(const tg::OperatorHandle& op, ByteSource& source,
                                       const ArgumentOptions& options) {
  try {
    tg::Stack stack = random_arguments(op.schema(), source, options);
    const bool run_backward = source.boolean();
    op.callBoxed(stack);
    if (run_backward) {
      for (const IValue& value : stack) {
        if (!value.isTensor()) continue;
        const Tensor& out = value.toTensor();
        // A view can be legally huge without memory (expand or as_strided to 2^50 elements with
        // stride 0): summing it would run for hours, so backward runs only on outputs of a size
        // that real memory could hold.
        if (out.defined() && out.requires_grad() && tg::is_floating_type(out.scalar_type()) &&
            out.numel() <= kLargestBackwardNumel) {
          out.sum().backward();
        }
      }
    }
    return {};
  } catch (const tg::Error& e) {
    return {CallOutcome::TgError, e.what()};
  } catch (const std::exception& e) {
    return {CallOutcome::ForeignException, std::string(typeid(e).name()) + ": " + e.what()};
  } catch (...) {
    return {CallOutcome::ForeignException, "an exception that is not a std::exception"};
  }
}

}  // namespace tg_fuzz
