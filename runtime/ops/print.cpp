#include "ops/print.h"

#include "core/data_read_hook.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
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

// LibTorch's print format for one tensor (Formatting.cpp): every element is written with one
// width and notation, and values are divided by a common scale when their magnitudes call
// for it. Integer-valued tensors print as integers.
struct Format {
  double scale = 1;
  int width = 11;
  enum class Notation { Default, Fixed, Scientific } notation = Notation::Default;
};

Format choose_format(const std::vector<double>& values) {
  Format f;
  if (values.empty()) return f;
  bool int_mode = std::all_of(values.begin(), values.end(), [](double v) { return !std::isfinite(v) || v == std::ceil(v); });
  auto first_finite = std::find_if(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
  double exp_min = 1, exp_max = 1;
  if (first_finite != values.end()) {
    exp_min = exp_max = std::fabs(*first_finite);
    for (auto it = first_finite; it != values.end(); ++it) {
      if (!std::isfinite(*it)) continue;
      exp_min = std::min(exp_min, std::fabs(*it));
      exp_max = std::max(exp_max, std::fabs(*it));
    }
    exp_min = exp_min != 0 ? std::floor(std::log10(exp_min)) + 1 : 1;
    exp_max = exp_max != 0 ? std::floor(std::log10(exp_max)) + 1 : 1;
  }
  if (int_mode) {
    if (exp_max > 9) {
      f.notation = Format::Notation::Scientific;
    } else {
      f.width = static_cast<int>(exp_max) + 1;
    }
  } else if (exp_max - exp_min > 4) {
    f.notation = Format::Notation::Scientific;
    if (std::fabs(exp_max) > 99 || std::fabs(exp_min) > 99) f.width = 12;
  } else {
    f.notation = Format::Notation::Fixed;
    if (exp_max > 5 || exp_max < 0) {
      f.width = 7;
      f.scale = std::pow(10, exp_max - 1);
    } else {
      f.width = exp_max == 0 ? 7 : static_cast<int>(exp_max) + 6;
    }
  }
  return f;
}

void apply_notation(std::ostream& out, const Format& f) {
  switch (f.notation) {
    case Format::Notation::Default: out << std::defaultfloat; break;
    case Format::Notation::Fixed: out << std::fixed << std::setprecision(4); break;
    case Format::Notation::Scientific: out << std::scientific << std::setprecision(4); break;
  }
}

void print_scale(std::ostream& out, double scale) { out << std::defaultfloat << scale << " *\n"; }

// Rows of a matrix, wrapped into blocks of columns that fit in `line_width`.
void print_matrix(std::ostream& out, const double* data, int64_t rows, int64_t cols, const Format& f, int indent,
                  int line_width = 80) {
  int64_t per_line = std::max<int64_t>(1, (line_width - indent) / (f.width + 1));
  for (int64_t first = 0; first < cols; first += per_line) {
    int64_t last = std::min(cols, first + per_line) - 1;
    if (per_line < cols) {
      if (first != 0) out << "\n";
      out << "Columns " << first + 1 << " to " << last + 1 << "\n";
    }
    if (f.scale != 1) {
      print_scale(out, f.scale);
      apply_notation(out, f);
    }
    for (int64_t r = 0; r < rows; ++r) {
      out << std::string(static_cast<size_t>(indent), ' ');
      for (int64_t c = first; c <= last; ++c) {
        out << std::setw(f.width) << data[r * cols + c] / f.scale;
        out << (c == last ? "\n" : " ");
      }
    }
  }
}

}  // namespace

std::string type_string(const Tensor& t) {
  return std::string(t.is_cuda() ? "CUDA" : "CPU") + std::string(legacy_type_name(t.scalar_type())) + "Type";
}

std::ostream& operator<<(std::ostream& out, const Tensor& tensor) {
  if (!tensor.defined()) return out << "[ Tensor (undefined) ]";
  notify_data_read("printing a tensor", tensor);
  Tensor t = tensor.is_cpu() ? tensor.contiguous() : tensor.to(TensorOptions().device(kCPU)).contiguous();
  std::vector<double> values(static_cast<size_t>(t.numel()));
  const char* data = static_cast<const char*>(t.data_ptr());
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = load_scalar(data + i * static_cast<size_t>(t.element_size()), t.scalar_type()).toDouble();
  }
  std::ios_base::fmtflags flags = out.flags();
  std::streamsize precision = out.precision();
  if (t.dim() == 0) {
    out << std::defaultfloat << values[0] << "\n";
  } else if (t.numel() > 0) {
    Format f = choose_format(values);
    apply_notation(out, f);
    if (t.dim() == 1) {
      if (f.scale != 1) {
        print_scale(out, f.scale);
        apply_notation(out, f);
      }
      for (double v : values) out << std::setw(f.width) << v / f.scale << "\n";
    } else if (t.dim() == 2) {
      print_matrix(out, values.data(), t.size(0), t.size(1), f, /*indent=*/0);
    } else {
      int64_t rows = t.size(-2), cols = t.size(-1);
      int64_t matrices = t.numel() / (rows * cols);
      for (int64_t m = 0; m < matrices; ++m) {
        // "(i,j,.,.) = " heads each matrix, with 1-based indices of the leading dims.
        std::vector<int64_t> index(static_cast<size_t>(t.dim() - 2));
        for (int64_t d = t.dim() - 3, rest = m; d >= 0; --d) {
          index[static_cast<size_t>(d)] = rest % t.size(d);
          rest /= t.size(d);
        }
        if (m > 0) out << "\n";
        out << "(";
        for (int64_t i : index) out << i + 1 << ",";
        out << ".,.) = \n";
        print_matrix(out, values.data() + m * rows * cols, rows, cols, f, /*indent=*/1);
      }
    }
  }
  out.flags(flags);
  out.precision(precision);
  out << "[ " << type_string(tensor) << "{";
  for (int64_t d = 0; d < tensor.dim(); ++d) out << (d ? "," : "") << tensor.size(d);
  return out << "} ]";
}

}  // namespace tg
