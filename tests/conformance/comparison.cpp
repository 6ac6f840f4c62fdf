#include "comparison.h"

#include <cmath>
#include <sstream>

#include "sample_inputs.h"

namespace tg::conformance {

Tolerances tolerance_for(const OpSpec& spec, ScalarType dtype) {
  for (const Tolerance& t : spec.tolerances) {
    if (t.dtype == dtype) return {t.atol, t.rtol};
  }
  switch (dtype) {
    case kDouble: return {1e-7, 1e-7};
    case kFloat: return {1e-5, 1.3e-6};
    case kHalf: return {1e-5, 1e-3};
    case kBFloat16: return {1e-5, 1.6e-2};
    default: return kExact;
  }
}

std::vector<double> values_of(const Tensor& t) {
  Tensor dense = t.to(kDouble).contiguous();
  const double* data = dense.data_ptr<double>();
  return std::vector<double>(data, data + dense.numel());
}

std::string mismatch(const Tensor& expected, const Tensor& actual, Tolerances tol, bool values) {
  std::ostringstream out;
  if (expected.defined() != actual.defined()) {
    out << "expected " << (expected.defined() ? "a tensor" : "an undefined tensor") << ", got "
        << (actual.defined() ? "a tensor" : "an undefined tensor");
    return out.str();
  }
  if (!expected.defined()) return {};
  if (expected.sizes() != actual.sizes()) {
    out << "expected shape " << expected.sizes() << ", got " << actual.sizes();
    return out.str();
  }
  if (expected.scalar_type() != actual.scalar_type()) {
    out << "expected dtype " << expected.scalar_type() << ", got " << actual.scalar_type();
    return out.str();
  }
  if (!values) return {};
  const std::vector<double> want = values_of(expected), got = values_of(actual);
  for (size_t i = 0; i < want.size(); ++i) {
    const double e = want[i], a = got[i];
    if (std::isnan(e) && std::isnan(a)) continue;
    if (e == a) continue;  // equal infinities too
    if (std::fabs(a - e) <= tol.atol + tol.rtol * std::fabs(e)) continue;
    out << "element " << i << " (row-major) is " << a << ", expected " << e << " (atol " << tol.atol
        << ", rtol " << tol.rtol << ")";
    return out.str();
  }
  return {};
}

std::string mismatch(const Stack& expected, const Stack& actual, Tolerances tol, bool values) {
  const std::vector<Tensor> want = tensors_in(expected), got = tensors_in(actual);
  if (want.size() != got.size()) {
    return "expected " + std::to_string(want.size()) + " tensors, got " + std::to_string(got.size());
  }
  for (size_t i = 0; i < want.size(); ++i) {
    std::string difference = mismatch(want[i], got[i], tol, values);
    if (!difference.empty()) return (want.size() > 1 ? "result " + std::to_string(i) + ": " : "") + difference;
  }
  return {};
}

}  // namespace tg::conformance
