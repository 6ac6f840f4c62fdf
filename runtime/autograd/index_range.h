// IndexRange: the slots [begin, end) that one input of a backward node occupies among the
// node's next edges. A Tensor input has one slot and a Tensor[] input one per element, so a
// node with a list input lays its slots out at run time: IndexRangeGenerator hands out
// consecutive ranges in input order, and input k's range starts where input k-1's ends.
#pragma once

#include <cstddef>
#include <vector>

#include "autograd/node.h"
#include "core/error.h"

namespace tg::autograd {

struct IndexRange {
  size_t begin = 0;
  size_t end = 0;
  size_t size() const { return end - begin; }
};

class IndexRangeGenerator {
 public:
  IndexRange range(size_t n) {
    IndexRange r{next_, next_ + n};
    next_ += n;
    return r;
  }
  size_t size() const { return next_; }

 private:
  size_t next_ = 0;
};

// Whether the gradient of some input slot in `range` is needed.
inline bool should_compute_any(const Node& node, IndexRange range) {
  for (size_t i = range.begin; i < range.end; ++i) {
    if (node.should_compute_output(i)) return true;
  }
  return false;
}

// Stores one input's gradient (a single slot) or one per element of a list input.
inline void copy_range(variable_list& grad_inputs, IndexRange range, const Tensor& grad) {
  TG_INTERNAL_ASSERT(range.size() == 1, "a Tensor gradient for a range of ", range.size(), " slots");
  grad_inputs[range.begin] = grad;
}
inline void copy_range(variable_list& grad_inputs, IndexRange range, const variable_list& grads) {
  TG_INTERNAL_ASSERT(grads.size() == range.size(), "a formula returned ", grads.size(), " gradients for ",
                     range.size(), " list elements");
  for (size_t i = 0; i < grads.size(); ++i) grad_inputs[range.begin + i] = grads[i];
}

}  // namespace tg::autograd
