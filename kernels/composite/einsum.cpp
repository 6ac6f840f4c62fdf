// einsum (schemas/einsum.yaml) composed of sum, mul, permute, reshape and bmm. See
// Note [einsum as pairwise bmm].
#include <algorithm>
#include <array>
#include <string>

#include "NativeFunctions.h"
#include "tensorgen/ops.h"

namespace tg::native {

// Note [einsum as pairwise bmm]
// Labels are numbered: 'A'..'Z' are 0..25, 'a'..'z' 26..51, and the dims "..." stands for
// (right-aligned across operands, so they broadcast) 52 onwards. Each operand first takes the
// diagonal of a label it repeats (multiplied by an identity mask and summed: no diagonal view
// is needed) and sums the labels no other operand and not the output has. Then, greedily, the
// pair of operands whose result is smallest is contracted: labels both have and something
// later needs are batch dims, labels both have and nothing later needs are summed, the rest
// stay; both are permuted and reshaped to [batch, rows, k] and [batch, k, cols] for one bmm.
// Size-1 dims broadcast against the other operand's size (expanded). Last, the survivor is
// permuted to the output's order.

namespace {

constexpr int kEllipsisBase = 52;

struct Operand {
  Tensor tensor;
  std::vector<int> labels;  // one per dim
};

int label_of(char c, std::string_view equation) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  TG_CHECK_VALUE(false, "[einsum] invalid subscript '", std::string(1, c), "' in equation '", equation,
                 "': subscripts must be letters in [a-zA-Z]");
  return -1;
}

// The labels of one term ("ab...c"), the ellipsis standing for `ellipsis_dims` dims ending at
// label kEllipsisBase + max_ellipsis - 1. Returns whether the term had an ellipsis.
bool parse_term(std::string_view term, std::string_view equation, int64_t ellipsis_dims, int64_t max_ellipsis,
                std::vector<int>& labels) {
  bool ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term[i] == '.') {
      TG_CHECK_VALUE(!ellipsis && term.substr(i, 3) == "...", "[einsum] invalid '.' in equation '", equation,
                     "': expected one '...' per term");
      ellipsis = true;
      for (int64_t e = max_ellipsis - ellipsis_dims; e < max_ellipsis; ++e) {
        labels.push_back(kEllipsisBase + static_cast<int>(e));
      }
      i += 2;
    } else {
      labels.push_back(label_of(term[i], equation));
    }
  }
  return ellipsis;
}

int64_t letters_in(std::string_view term) {
  int64_t count = 0;
  for (char c : term) count += c != '.';
  return count;
}

bool has(const std::vector<int>& labels, int label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

int64_t index_of(const std::vector<int>& labels, int label) {
  return std::find(labels.begin(), labels.end(), label) - labels.begin();
}

Tensor sum_dims(const Tensor& t, const std::vector<int64_t>& dims) {
  if (dims.empty()) return t;
  const bool keep_dtype = t.scalar_type() != kBool;
  return keep_dtype ? tg::sum(t, dims, false, t.scalar_type()) : tg::sum(t, dims);
}

// Diagonal of repeated labels, then the sum of labels nothing else needs.
Operand reduce_alone(Operand op, const std::array<int, 128>& uses, const std::vector<int>& output) {
  for (size_t p = 0; p < op.labels.size(); ++p) {
    for (size_t q = p + 1; q < op.labels.size();) {
      if (op.labels[q] != op.labels[p]) {
        ++q;
        continue;
      }
      const int64_t n = op.tensor.size(static_cast<int64_t>(p));
      TG_CHECK_VALUE(op.tensor.size(static_cast<int64_t>(q)) == n, "[einsum] subscript ",
                     "repeated in an operand must have equal sizes, got ", n, " and ",
                     op.tensor.size(static_cast<int64_t>(q)));
      const Tensor range = tg::arange(n, TensorOptions().dtype(kLong).device(op.tensor.device()));
      std::vector<int64_t> shape(op.labels.size(), 1);
      shape[p] = n;
      std::vector<int64_t> shape_q(op.labels.size(), 1);
      shape_q[q] = n;
      const Tensor mask = (range.reshape(shape) == range.reshape(shape_q)).to(op.tensor.scalar_type());
      op.tensor = sum_dims(op.tensor * mask, {static_cast<int64_t>(q)});
      op.labels.erase(op.labels.begin() + static_cast<int64_t>(q));
    }
  }
  std::vector<int64_t> alone;
  std::vector<int> kept;
  for (size_t d = 0; d < op.labels.size(); ++d) {
    const int l = op.labels[d];
    if (uses[static_cast<size_t>(l)] == 1 && !has(output, l)) {
      alone.push_back(static_cast<int64_t>(d));
    } else {
      kept.push_back(l);
    }
  }
  op.tensor = sum_dims(op.tensor, alone);
  op.labels = kept;
  return op;
}

int64_t label_size(const Operand& a, const Operand& b, int label) {
  const int64_t sa = has(a.labels, label) ? a.tensor.size(index_of(a.labels, label)) : 1;
  const int64_t sb = has(b.labels, label) ? b.tensor.size(index_of(b.labels, label)) : 1;
  TG_CHECK_VALUE(sa == sb || sa == 1 || sb == 1, "[einsum] operands do not broadcast: a subscript has size ", sa,
                 " in one operand and ", sb, " in another");
  return std::max(sa, sb);
}

struct PairPlan {
  std::vector<int> batch, left, contracted, right;
  int64_t result_numel = 1;
};

PairPlan plan_pair(const Operand& a, const Operand& b, const std::vector<int>& needed) {
  PairPlan plan;
  for (int l : a.labels) {
    if (has(b.labels, l)) {
      (has(needed, l) ? plan.batch : plan.contracted).push_back(l);
    } else {
      plan.left.push_back(l);
    }
  }
  for (int l : b.labels) {
    if (!has(a.labels, l)) plan.right.push_back(l);
  }
  for (const auto* group : {&plan.batch, &plan.left, &plan.right}) {
    for (int l : *group) plan.result_numel *= label_size(a, b, l);
  }
  return plan;
}

// `t` (with `labels`) permuted to `order` and each label expanded to its size in the pair.
Tensor arrange(const Operand& t, const Operand& a, const Operand& b, const std::vector<int>& order) {
  std::vector<int64_t> perm, sizes;
  for (int l : order) {
    perm.push_back(index_of(t.labels, l));
    sizes.push_back(label_size(a, b, l));
  }
  return t.tensor.permute(perm).expand(sizes);
}

int64_t product(const Operand& a, const Operand& b, const std::vector<int>& labels) {
  int64_t p = 1;
  for (int l : labels) p *= label_size(a, b, l);
  return p;
}

Operand contract(const Operand& a, const Operand& b, const PairPlan& plan) {
  const int64_t nb = product(a, b, plan.batch), m = product(a, b, plan.left), k = product(a, b, plan.contracted),
                n = product(a, b, plan.right);
  std::vector<int> a_order = plan.batch, b_order = plan.batch;
  a_order.insert(a_order.end(), plan.left.begin(), plan.left.end());
  a_order.insert(a_order.end(), plan.contracted.begin(), plan.contracted.end());
  b_order.insert(b_order.end(), plan.contracted.begin(), plan.contracted.end());
  b_order.insert(b_order.end(), plan.right.begin(), plan.right.end());
  const ScalarType dtype = promote_types(a.tensor.scalar_type(), b.tensor.scalar_type());
  const Tensor lhs = arrange(a, a, b, a_order).to(dtype).reshape({nb, m, k});
  const Tensor rhs = arrange(b, a, b, b_order).to(dtype).reshape({nb, k, n});
  Operand result;
  result.labels = plan.batch;
  result.labels.insert(result.labels.end(), plan.left.begin(), plan.left.end());
  result.labels.insert(result.labels.end(), plan.right.begin(), plan.right.end());
  std::vector<int64_t> sizes;
  for (int l : result.labels) sizes.push_back(label_size(a, b, l));
  result.tensor = tg::bmm(lhs, rhs).reshape(sizes);
  return result;
}

}  // namespace

Tensor einsum(std::string_view equation_in, TensorList tensors) {
  std::string equation;
  for (char c : equation_in) {
    if (c != ' ') equation.push_back(c);
  }
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  TG_CHECK_VALUE(terms.size() == tensors.size(), "[einsum] the equation '", equation_in, "' has ", terms.size(),
                 " operands but ", tensors.size(), " tensors were given");
  // Dims under "..." per operand, and the most of any operand.
  int64_t max_ellipsis = 0;
  std::vector<int64_t> ellipsis_dims(terms.size(), 0);
  for (size_t i = 0; i < terms.size(); ++i) {
    const int64_t letters = letters_in(terms[i]);
    const bool ellipsis = terms[i].find("...") != std::string::npos;
    TG_CHECK_VALUE(ellipsis ? tensors[i].dim() >= letters : tensors[i].dim() == letters, "[einsum] operand ", i,
                   " has ", tensors[i].dim(), " dims but the subscripts '", terms[i], "' name ", letters);
    ellipsis_dims[i] = ellipsis ? tensors[i].dim() - letters : 0;
    max_ellipsis = std::max(max_ellipsis, ellipsis_dims[i]);
  }
  std::array<int, 128> uses{};  // operands each label appears in
  std::vector<Operand> operands;
  for (size_t i = 0; i < terms.size(); ++i) {
    Operand op{tensors[i], {}};
    parse_term(terms[i], equation_in, ellipsis_dims[i], max_ellipsis, op.labels);
    std::vector<int> distinct;
    for (int l : op.labels) {
      if (!has(distinct, l)) distinct.push_back(l);
    }
    for (int l : distinct) ++uses[static_cast<size_t>(l)];
    operands.push_back(std::move(op));
  }
  std::vector<int> output;
  if (arrow != std::string::npos) {
    const std::string rhs = equation.substr(arrow + 2);
    parse_term(rhs, equation_in, max_ellipsis, max_ellipsis, output);
    for (size_t i = 0; i < output.size(); ++i) {
      const int l = output[i];
      TG_CHECK_VALUE(uses[static_cast<size_t>(l)] > 0 || l >= kEllipsisBase, "[einsum] output subscript of '",
                     equation_in, "' does not appear in the equation for any input operand");
      TG_CHECK_VALUE(std::count(output.begin(), output.end(), l) == 1, "[einsum] output subscript of '",
                     equation_in, "' appears more than once in the output");
    }
  } else {  // implicit: "..." first, then the labels used once, in label order
    for (int64_t e = 0; e < max_ellipsis; ++e) output.push_back(kEllipsisBase + static_cast<int>(e));
    for (int l = 0; l < kEllipsisBase; ++l) {
      int count = 0;
      for (const Operand& op : operands) count += static_cast<int>(std::count(op.labels.begin(), op.labels.end(), l));
      if (count == 1) output.push_back(l);
    }
  }
  for (Operand& op : operands) op = reduce_alone(std::move(op), uses, output);
  while (operands.size() > 1) {
    // Greedy path: the pair with the smallest result.
    size_t best_i = 0, best_j = 1;
    PairPlan best;
    bool first = true;
    for (size_t i = 0; i < operands.size(); ++i) {
      for (size_t j = i + 1; j < operands.size(); ++j) {
        std::vector<int> needed = output;
        for (size_t o = 0; o < operands.size(); ++o) {
          if (o != i && o != j) needed.insert(needed.end(), operands[o].labels.begin(), operands[o].labels.end());
        }
        PairPlan plan = plan_pair(operands[i], operands[j], needed);
        if (first || plan.result_numel < best.result_numel) {
          best = std::move(plan), best_i = i, best_j = j, first = false;
        }
      }
    }
    Operand merged = contract(operands[best_i], operands[best_j], best);
    operands.erase(operands.begin() + static_cast<int64_t>(best_j));
    operands[best_i] = std::move(merged);
  }
  Operand& last = operands.front();
  std::vector<int64_t> perm;
  for (int l : output) {
    if (has(last.labels, l)) perm.push_back(index_of(last.labels, l));
  }
  Tensor result = last.tensor.permute(perm);
  // Output "..." dims no operand had (fewer than max): none exist, as max comes from an operand.
  return result;
}

}  // namespace tg::native
