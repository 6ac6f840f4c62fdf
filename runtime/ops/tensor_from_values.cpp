#include "ops/tensor_from_values.h"

#include "ops/factory_options.h"
#include "ops/scalar_tensor.h"
#include "tensorgen/ops.h"

namespace tg {

namespace {

// LibTorch's choice of dtype for a list of C++ values: floating values take the default
// dtype, integers int64, bools bool (tg::tensor({1, 2}) is int64, tg::tensor({1.5}) float32).
template <typename T>
ScalarType dtype_for_values() {
  if constexpr (std::is_same_v<T, bool>) {
    return kBool;
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return CppTypeToScalarType<T>::value;
  } else if constexpr (std::is_floating_point_v<T>) {
    return default_dtype();
  } else {
    return kLong;
  }
}

}  // namespace

template <typename T>
Tensor tensor(ArrayRef<T> values, const TensorOptions& options) {
  ScalarType dtype = options.dtype_opt().value_or(dtype_for_values<T>());
  // A floating value goes to an integral dtype as a copy converts it (LibTorch's tensor() does
  // the same: {-2.0} as uint8 is 254), not through the checked Scalar conversion, which raises.
  const ScalarType staged = std::is_floating_point_v<T> && is_integral_type(dtype, false) ? kDouble : dtype;
  Tensor cpu = make_empty_tensor({static_cast<int64_t>(values.size())}, staged, Device(kCPU));
  char* data = static_cast<char*>(cpu.data_ptr());
  for (size_t i = 0; i < values.size(); ++i) store_scalar(data + i * element_size(staged), staged, Scalar(values[i]));
  if (staged != dtype) cpu = cpu.to(dtype);
  Tensor result = options.device().is_cpu() ? cpu : cpu.to(TensorOptions().device(options.device()));
  return apply_requires_grad_option("tensor", std::move(result), options);
}

#define TG_INSTANTIATE_TENSOR(ctype, name, str) template Tensor tensor<ctype>(ArrayRef<ctype>, const TensorOptions&);
TG_FORALL_SCALAR_TYPES(TG_INSTANTIATE_TENSOR)
#undef TG_INSTANTIATE_TENSOR
template Tensor tensor<long long>(ArrayRef<long long>, const TensorOptions&);  // int64_t is `long`

namespace {

struct BlobContext {
  void* data;
  std::function<void(void*)> deleter;
};

void delete_blob(void* context) {
  auto* blob = static_cast<BlobContext*>(context);
  if (blob->deleter) blob->deleter(blob->data);
  delete blob;
}

Tensor blob_tensor(void* data, IntArrayRef sizes, std::optional<IntArrayRef> strides, std::function<void(void*)> deleter,
                   const TensorOptions& options) {
  ScalarType dtype = options.dtype();
  Device device = options.device();
  int64_t last = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    TG_CHECK_VALUE(sizes[i] >= 0, "[from_blob] sizes must be non-negative, got ", sizes);
    if (strides) last += (sizes[i] - 1) * (*strides)[i];
  }
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  size_t nbytes = numel == 0 ? 0 : static_cast<size_t>(strides ? last + 1 : numel) * element_size(dtype);
  DataPtr ptr(data, new BlobContext{data, std::move(deleter)}, &delete_blob, device);
  auto storage = make_intrusive<StorageImpl>(std::move(ptr), nbytes, /*allocator=*/nullptr);
  auto impl = make_intrusive<TensorImpl>(std::move(storage), dtype, sizes);
  if (strides) {
    TG_CHECK_VALUE(strides->size() == sizes.size(), "[from_blob] expected ", sizes.size(), " strides, got ",
                   strides->size());
    impl->set_sizes_and_strides(sizes, *strides);
  }
  return apply_requires_grad_option("from_blob", Tensor(std::move(impl)), options);
}

}  // namespace

Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options) {
  return blob_tensor(data, sizes, std::nullopt, nullptr, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options) {
  return blob_tensor(data, sizes, strides, nullptr, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, std::function<void(void*)> deleter, const TensorOptions& options) {
  return blob_tensor(data, sizes, std::nullopt, std::move(deleter), options);
}

TensorData::TensorData(std::initializer_list<TensorData> list) : is_list_(true), elements_(list) {
  if (elements_.empty()) {
    sizes_ = {0};
    dtype_ = default_dtype();
    return;
  }
  const TensorData& first = elements_.front();
  sizes_ = {static_cast<int64_t>(elements_.size())};
  sizes_.insert(sizes_.end(), first.sizes_.begin(), first.sizes_.end());
  dtype_ = first.dtype_;
  for (size_t i = 1; i < elements_.size(); ++i) {
    const TensorData& element = elements_[i];
    TG_CHECK_VALUE(element.sizes_ == first.sizes_, "[tensor] Expected all sub-lists to have sizes: ",
                   IntArrayRef(first.sizes_), " (e.g. ", first, "), but got sub-list ", element,
                   " with sizes: ", IntArrayRef(element.sizes_));
    // Mixed scalars promote as LibTorch's braced lists do: bool < integral < floating.
    dtype_ = promote_types(dtype_, element.dtype_);
  }
}

void TensorData::fill(char* data, ScalarType dtype, int64_t& position) const {
  if (!is_list_) {
    store_scalar(data + position * static_cast<int64_t>(element_size(dtype)), dtype, scalar_);
    ++position;
    return;
  }
  for (const TensorData& element : elements_) element.fill(data, dtype, position);
}

std::ostream& operator<<(std::ostream& stream, const TensorData& data) {
  if (!data.is_list_) return stream << data.scalar_;
  stream << '{';
  for (size_t i = 0; i < data.elements_.size(); ++i) stream << (i ? ", " : "") << data.elements_[i];
  return stream << '}';
}

Tensor tensor(const TensorData& data, const TensorOptions& options) {
  const ScalarType dtype = options.dtype_opt().value_or(data.dtype());
  // As above: floating values reach an integral dtype through a copy's conversion.
  const ScalarType staged = is_floating_type(data.dtype()) && is_integral_type(dtype, false) ? kDouble : dtype;
  Tensor cpu = make_empty_tensor(data.sizes(), staged, Device(kCPU));
  int64_t position = 0;
  data.fill(static_cast<char*>(cpu.data_ptr()), staged, position);
  if (staged != dtype) cpu = cpu.to(dtype);
  Tensor result = options.device().is_cpu() ? cpu : cpu.to(TensorOptions().device(options.device()));
  return apply_requires_grad_option("tensor", std::move(result), options);
}

}  // namespace tg
