#include "sample_inputs.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "dispatch/schema_values.h"

namespace tg::conformance {

namespace {

// Draws doubles for one dtype: reals in the domain, integers in a small range inside it.
double draw(std::mt19937_64& rng, ScalarType dtype, const Domain& domain) {
  const bool integral = !is_floating_type(dtype);
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  auto integer = [&](int64_t lo, int64_t hi) {  // [lo, hi]
    return static_cast<double>(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
  };
  const bool negative_ok = dtype != kByte && dtype != kBool;
  if (dtype == kBool) return domain.kind == Domain::Positive || domain.kind == Domain::Nonzero ? 1.0 : integer(0, 1);
  switch (domain.kind) {
    case Domain::Any:
      return integral ? integer(negative_ok ? -4 : 0, 4) : uniform(-2.0, 2.0);
    case Domain::Positive:
      return integral ? integer(1, 4) : uniform(0.5, 2.5);
    case Domain::Nonzero: {
      const double sign = negative_ok && integer(0, 1) == 0 ? -1.0 : 1.0;
      return sign * (integral ? integer(1, 4) : uniform(0.5, 2.5));
    }
    case Domain::Unit:
      return integral ? 0.0 : uniform(-0.9, 0.9);
    case Domain::Interval:
      if (integral) {  // [low, high): an index range
        const auto lo = static_cast<int64_t>(std::ceil(domain.low));
        const auto hi = static_cast<int64_t>(std::ceil(domain.high)) - 1;
        return integer(lo, std::max(lo, hi));
      }
      return uniform(domain.low, domain.high);
  }
  return 0.0;
}

bool has_tensor_input(const OpSpec& spec) {
  for (const ArgSpec& a : spec.args) {
    if (a.role != ArgSpec::Value) return true;
  }
  return false;
}

void describe_value(std::ostream& out, const IValue& v) {
  if (v.isTensor()) {
    const Tensor& t = v.toTensor();
    if (!t.defined()) {
      out << "undefined";
      return;
    }
    out << t.scalar_type() << t.sizes();
    if (!t.is_contiguous()) out << " strides " << t.strides();
  } else if (v.isTensorList()) {
    out << "[";
    const auto list = v.toTensorList();
    for (size_t i = 0; i < list.size(); ++i) {
      out << (i ? ", " : "");
      describe_value(out, IValue(list[i]));
    }
    out << "]";
  } else {
    out << v;
  }
}

}  // namespace

Tensor random_tensor(IntArrayRef shape, ScalarType dtype, const Domain& domain, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Tensor values = empty(shape, TensorOptions().dtype(kDouble));
  double* data = values.data_ptr<double>();
  for (int64_t i = 0; i < values.numel(); ++i) data[i] = draw(rng, dtype, domain);
  return values.to(dtype);
}

Stack materialize(const OpSpec& spec, const Sample& sample, ScalarType dtype, uint64_t seed) {
  const FunctionSchema& schema = spec.handle().schema();
  const bool factory = !has_tensor_input(spec);
  Stack args;
  size_t index = 0;
  for (const Argument& argument : schema.arguments) {
    if (argument.type.alias && argument.type.alias->is_write && argument.kwarg_only) continue;  // an out
    TG_INTERNAL_ASSERT(index < spec.args.size() && index < sample.size(), "sample of ", spec.name, " too short");
    const ArgSpec& arg = spec.args[index];
    const SampleValue& given = sample[index];
    const ScalarType arg_dtype = given.dtype.value_or(arg.pinned_dtype.value_or(dtype));
    const Domain& domain = given.domain ? *given.domain : arg.domain;
    const uint64_t arg_seed = seed * 1000003u + index * 7919u;
    switch (given.kind) {
      case SampleValue::Shape:
        args.emplace_back(random_tensor(given.shape, arg_dtype, domain, arg_seed));
        break;
      case SampleValue::Shapes: {
        std::vector<Tensor> list;
        for (size_t i = 0; i < given.shapes.size(); ++i) {
          list.push_back(random_tensor(given.shapes[i], arg_dtype, domain, arg_seed + 31 * (i + 1)));
        }
        args.emplace_back(std::move(list));
        break;
      }
      case SampleValue::Value:
        args.push_back(given.value);
        break;
      case SampleValue::Default:
        if (factory && argument.name == "dtype" && argument.type.base == BaseType::ScalarType) {
          args.emplace_back(dtype);
        } else {
          TG_INTERNAL_ASSERT(argument.default_value.has_value(), spec.name, ": sample lacks '", argument.name, "'");
          args.push_back(default_ivalue(argument));
        }
        break;
    }
    ++index;
  }
  return args;
}

Stack clone_tensors(const Stack& args) {
  Stack copy;
  for (const IValue& v : args) {
    if (v.isTensor() && v.toTensor().defined()) {
      copy.emplace_back(v.toTensor().clone());
    } else if (v.isTensorList()) {
      std::vector<Tensor> list;
      for (const Tensor& t : v.toTensorList()) list.push_back(t.clone());
      copy.emplace_back(std::move(list));
    } else {
      copy.push_back(v);
    }
  }
  return copy;
}

std::vector<Tensor> tensors_in(const Stack& values) {
  std::vector<Tensor> tensors;
  for (const IValue& v : values) {
    if (v.isTensor()) {
      tensors.push_back(v.toTensor());
    } else if (v.isTensorList()) {
      for (const Tensor& t : v.toTensorList()) tensors.push_back(t);
    }
  }
  return tensors;
}

std::string describe(const OpSpec& spec, const Stack& args) {
  std::ostringstream out;
  for (size_t i = 0; i < args.size() && i < spec.args.size(); ++i) {
    out << (i ? ", " : "") << spec.args[i].name << ": ";
    describe_value(out, args[i]);
  }
  return out.str();
}

std::vector<Tensor> empty_outs(const std::vector<ScalarType>& dtypes, Device device) {
  std::vector<Tensor> outs;
  for (ScalarType dtype : dtypes) outs.push_back(empty({0}, TensorOptions().dtype(dtype).device(device)));
  return outs;
}

const std::vector<Layout>& noncontiguous_layouts() {
  static const std::vector<Layout> layouts = {
      {"transposed", true,
       [](const Tensor& t) -> std::optional<Tensor> {
         if (t.dim() < 2 || t.size(-1) < 2 || t.size(-2) < 2) return std::nullopt;
         return t.transpose(-1, -2).contiguous().transpose(-1, -2);
       }},
      {"sliced with step 2", true,
       [](const Tensor& t) -> std::optional<Tensor> {
         if (t.dim() < 1 || t.numel() == 0) return std::nullopt;
         std::vector<int64_t> wide = t.sizes().vec();
         wide.back() *= 2;
         Tensor strided = empty(wide, t.options()).slice(-1, 0, wide.back(), 2);
         strided.copy_(t);
         return strided;
       }},
      {"expanded", false,
       [](const Tensor& t) -> std::optional<Tensor> {
         if (t.dim() < 1 || t.size(0) < 2) return std::nullopt;
         return t.narrow(0, 0, 1).expand(t.sizes());
       }},
  };
  return layouts;
}

}  // namespace tg::conformance
