#include "ops/print.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <vector>

#include "ops/scalar_tensor.h"
#include "tensorgen/ops.h"

namespace tg {

namespace {

std::string_view legacy_type_name(ScalarType t) {
  switch (t) {
    case kByte: return "Byte";
    case kChar: return "Char";
    case kShort: return "Short";
    case kInt: return "Int";
    case kLong: return "Long";
    case kHalf: return "Half";
    case kFloat: return "Float";
    case kDouble: return "Double";
    case kBool: return "Bool";
    case kBFloat16: return "BFloat16";
    default: return "Undefined";
  }
}

// How every element of one tensor is formatted: a shared width, and for floating types a
// shared precision, so columns line up.
struct Format {
  bool floating = false;
  int precision = 4;
  int width = 1;
};

Format choose_format(const std::vector<double>& values, bool floating) {
  Format f;
  f.floating = floating;
  double max_abs = 0;
  bool all_integers = true;
  for (double v : values) {
    if (std::isfinite(v)) {
      max_abs = std::max(max_abs, std::fabs(v));
      all_integers &= v == std::floor(v);
    }
  }
  if (floating && all_integers) f.precision = 0;
  std::ostringstream probe;
  for (double v : values) {
    probe.str("");
    if (floating) {
      probe << std::fixed << std::setprecision(f.precision) << v;
    } else {
      probe << static_cast<int64_t>(v);
    }
    f.width = std::max<int>(f.width, static_cast<int>(probe.str().size()));
  }
  return f;
}

void print_value(std::ostream& out, double v, const Format& f) {
  out << std::setw(f.width + 1);
  if (!f.floating) {
    out << static_cast<int64_t>(v);
  } else if (f.precision == 0 && std::isfinite(v)) {
    out << (std::to_string(static_cast<int64_t>(v)) + ".");
  } else {
    out << std::fixed << std::setprecision(f.precision) << v;
  }
}

}  // namespace

std::string type_string(const Tensor& t) {
  return std::string(t.is_cuda() ? "CUDA" : "CPU") + std::string(legacy_type_name(t.scalar_type())) + "Type";
}

std::ostream& operator<<(std::ostream& out, const Tensor& tensor) {
  if (!tensor.defined()) return out << "[ Tensor (undefined) ]";
  Tensor t = tensor.is_cpu() ? tensor.contiguous() : tensor.to(TensorOptions().device(kCPU)).contiguous();
  std::vector<double> values(static_cast<size_t>(t.numel()));
  const char* data = static_cast<const char*>(t.data_ptr());
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = load_scalar(data + i * t.element_size(), t.scalar_type()).toDouble();
  }
  Format f = choose_format(values, t.is_floating_point());
  std::ios_base::fmtflags flags = out.flags();
  if (t.dim() == 0) {
    print_value(out, values.empty() ? 0 : values[0], f);
    out << "\n";
  } else {
    int64_t cols = t.size(-1);
    int64_t rows = cols == 0 ? 0 : t.numel() / cols;
    int64_t rows_per_matrix = t.dim() >= 2 ? t.size(-2) : rows;
    for (int64_t r = 0; r < rows; ++r) {
      if (t.dim() > 2 && r % rows_per_matrix == 0) {
        // "(i,j,.,.) =" heads each matrix of a tensor with more than two dims.
        int64_t matrix = r / rows_per_matrix;
        std::vector<int64_t> index(static_cast<size_t>(t.dim() - 2));
        for (int64_t d = t.dim() - 3; d >= 0; --d) {
          index[static_cast<size_t>(d)] = matrix % t.size(d);
          matrix /= t.size(d);
        }
        if (r > 0) out << "\n";
        out << "(";
        for (int64_t i : index) out << i + 1 << ",";
        out << ".,.) = \n";
      }
      if (t.dim() == 1) {
        for (int64_t c = 0; c < cols; ++c) {
          print_value(out, values[static_cast<size_t>(c)], f);
          out << "\n";
        }
        break;
      }
      for (int64_t c = 0; c < cols; ++c) print_value(out, values[static_cast<size_t>(r * cols + c)], f);
      out << "\n";
    }
  }
  out.flags(flags);
  out << "[ " << type_string(tensor) << "{";
  for (int64_t d = 0; d < tensor.dim(); ++d) out << (d ? "," : "") << tensor.size(d);
  return out << "} ]";
}

}  // namespace tg
