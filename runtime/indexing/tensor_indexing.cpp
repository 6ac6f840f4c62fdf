// Tensor::index / Tensor::index_put_ / Tensor::operator[] over tg::indexing::TensorIndex,
// following LibTorch's TensorIndexing.h: basic entries are applied left to right as view
// operations (select, slice, unsqueeze), and the tensor entries that remain, each at the dim
// of the sliced result it indexes, go to index.Tensor / index_put_ in one call.
#include <ostream>
#include <string_view>

#include "indexing/tensor_index.h"

namespace tg::indexing {

Slice::Slice(std::optional<int64_t> start, std::optional<int64_t> stop, std::optional<int64_t> step)
    : start_(start), stop_(stop), step_(step.value_or(1)) {
  TG_CHECK_VALUE(step_ != 0, "[index] slice step cannot be zero");
  TG_CHECK_VALUE(step_ > 0, "[index] step must be greater than zero, got ", step_);
}

std::ostream& operator<<(std::ostream& stream, const Slice& slice) {
  if (slice.start()) stream << *slice.start();
  stream << ':';
  if (slice.stop()) stream << *slice.stop();
  return stream << ':' << slice.step();
}

TensorIndex::TensorIndex(const char* text) : type_(Type::Ellipsis) {
  TG_CHECK_VALUE(text != nullptr && std::string_view(text) == "...",
                 "[index] Expected \"...\" to represent an ellipsis index, but got \"", text ? text : "(null)", "\"");
}

std::ostream& operator<<(std::ostream& stream, const TensorIndex& index) {
  switch (index.type()) {
    case TensorIndex::Type::None: return stream << "None";
    case TensorIndex::Type::Ellipsis: return stream << "...";
    case TensorIndex::Type::Integer: return stream << index.integer();
    case TensorIndex::Type::Boolean: return stream << (index.boolean() ? "true" : "false");
    case TensorIndex::Type::Slice: return stream << index.slice();
    case TensorIndex::Type::Tensor: return stream << index.tensor();
  }
  return stream;
}

namespace {

bool is_mask(const Tensor& tensor) {
  return tensor.scalar_type() == kBool || tensor.scalar_type() == kByte;
}

// The dims of self that the entries name (Ellipsis stands for the rest).
int64_t count_specified_dims(ArrayRef<TensorIndex> indices) {
  int64_t count = 0;
  for (const TensorIndex& index : indices) {
    if (index.is_integer() || index.is_slice()) ++count;
    if (index.is_tensor()) count += is_mask(index.tensor()) ? std::max<int64_t>(index.tensor().dim(), 1) : 1;
  }
  return count;
}

// The sliced view of self, and the tensor entries of LibTorch's applySlicing: entry d is the
// index of dim d of the view (None: the whole dim).
struct Sliced {
  Tensor view;
  std::vector<std::optional<Tensor>> tensors;
  bool any_tensor = false;
};

void record(Sliced& sliced, int64_t dim, std::optional<Tensor> tensor) {
  if (sliced.tensors.size() <= static_cast<size_t>(dim)) sliced.tensors.resize(static_cast<size_t>(dim) + 1);
  if (tensor) sliced.any_tensor = true;
  sliced.tensors[static_cast<size_t>(dim)] = std::move(tensor);
}

Sliced apply_slicing(const Tensor& self, ArrayRef<TensorIndex> indices) {
  const int64_t specified = count_specified_dims(indices);
  TG_CHECK_INDEX(specified <= self.dim(), "[index] too many indices for tensor of dimension ", self.dim());
  Sliced sliced{self, {}, false};
  int64_t dim = 0;
  bool seen_ellipsis = false;
  for (const TensorIndex& index : indices) {
    switch (index.type()) {
      case TensorIndex::Type::Integer:
        sliced.view = sliced.view.select(dim, index.integer());
        break;
      case TensorIndex::Type::Slice:
        sliced.view = sliced.view.slice(dim, index.slice().start(), index.slice().stop(), index.slice().step());
        ++dim;
        break;
      case TensorIndex::Type::None:
        sliced.view = sliced.view.unsqueeze(dim);
        ++dim;
        break;
      case TensorIndex::Type::Ellipsis:
        TG_CHECK_INDEX(!seen_ellipsis, "[index] an index can only have a single ellipsis ('...')");
        seen_ellipsis = true;
        dim += self.dim() - specified;
        break;
      case TensorIndex::Type::Boolean:
        // true keeps the new size-1 dim, false empties it (LibTorch's rule for t[True]).
        sliced.view = sliced.view.unsqueeze(dim);
        record(sliced, dim, index.boolean() ? tg::zeros({1}, TensorOptions().dtype(kLong).device(self.device()))
                                            : tg::empty({0}, TensorOptions().dtype(kLong).device(self.device())));
        ++dim;
        break;
      case TensorIndex::Type::Tensor: {
        const Tensor& tensor = index.tensor();
        TG_CHECK_VALUE(tensor.defined(), "[index] an index tensor is undefined");
        if (tensor.dim() == 0 && !is_mask(tensor) && !is_floating_type(tensor.scalar_type())) {
          sliced.view = sliced.view.select(dim, tensor.item<int64_t>());  // a 0-dim integer acts as an integer
        } else if (tensor.dim() == 0 && is_mask(tensor)) {
          sliced.view = sliced.view.unsqueeze(dim);
          record(sliced, dim, tensor.reshape({1}));
          ++dim;
        } else {
          record(sliced, dim, tensor);
          dim += is_mask(tensor) ? tensor.dim() : 1;
        }
        break;
      }
    }
  }
  return sliced;
}

}  // namespace

Tensor get_item(const Tensor& self, ArrayRef<TensorIndex> indices) {
  TG_CHECK_VALUE(!indices.empty(), "[index] Passing an empty index list to Tensor::index() is not valid syntax");
  Sliced sliced = apply_slicing(self, indices);
  if (!sliced.any_tensor) {
    // Only Ellipsis (or nothing that changes the view): LibTorch returns an alias, not self.
    return sliced.view.is_same(self) ? self.view(self.sizes()) : sliced.view;
  }
  return tg::index(sliced.view, sliced.tensors);
}

void set_item(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& value) {
  TG_CHECK_VALUE(!indices.empty(), "[index_put_] Passing an empty index list to Tensor::index_put_() is not valid syntax");
  Sliced sliced = apply_slicing(self, indices);
  if (!sliced.any_tensor) {
    sliced.view.copy_(value.expand(sliced.view.sizes()));
    return;
  }
  tg::index_put_(sliced.view, sliced.tensors, value);
}

}  // namespace tg::indexing

namespace tg {

Tensor Tensor::operator[](int64_t index) const { return indexing::get_item(*this, {indexing::TensorIndex(index)}); }
Tensor Tensor::operator[](const Tensor& index) const { return indexing::get_item(*this, {indexing::TensorIndex(index)}); }
Tensor Tensor::index(ArrayRef<indexing::TensorIndex> indices) const { return indexing::get_item(*this, indices); }
Tensor Tensor::index(std::initializer_list<indexing::TensorIndex> indices) const {
  return indexing::get_item(*this, ArrayRef<indexing::TensorIndex>(indices));
}

const Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& rhs) const {
  indexing::set_item(*this, indices, rhs);
  return *this;
}
const Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v) const {
  indexing::set_item(*this, indices, tg::full({}, v, options()));
  return *this;
}
const Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& rhs) const {
  return index_put_(ArrayRef<indexing::TensorIndex>(indices), rhs);
}
const Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& v) const {
  return index_put_(ArrayRef<indexing::TensorIndex>(indices), v);
}

}  // namespace tg
