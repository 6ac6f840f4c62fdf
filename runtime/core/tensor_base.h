// TensorBase: the handle part of tg::Tensor, everything that is not an operator.
// A handle is one pointer to a ref-counted TensorImpl (or null: an undefined tensor); copying
// a handle shares the tensor, as in LibTorch. Operator methods (t.add(u)) live on tg::Tensor,
// which derives from this class and is generated from the schemas.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/error.h"
#include "core/intrusive_ptr.h"
#include "core/scalar.h"
#include "core/tensor_impl.h"
#include "core/tensor_options.h"
#include "core/wrap_dim.h"

namespace tg {

namespace detail {
[[noreturn]] void undefined_tensor_error(const char* what);
[[noreturn]] void data_ptr_dtype_error(ScalarType expected, ScalarType actual);
[[noreturn]] void no_dims_error(const char* op, int64_t dim);
}  // namespace detail

class TensorBase {
 public:
  TensorBase() = default;
  explicit TensorBase(IntrusivePtr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const noexcept { return impl_ != nullptr; }
  void reset() noexcept { impl_.reset(); }

  IntArrayRef sizes() const { return impl().sizes(); }
  IntArrayRef strides() const { return impl().strides(); }
  int64_t size(int64_t dim) const { return impl().size(wrap_existing_dim(dim, "size")); }
  int64_t stride(int64_t dim) const { return impl().stride(wrap_existing_dim(dim, "stride")); }
  int64_t dim() const { return impl().dim(); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return impl().numel(); }
  bool is_contiguous() const { return impl().is_contiguous(); }
  int64_t storage_offset() const { return impl().storage_offset(); }
  ScalarType scalar_type() const { return impl().dtype(); }
  ScalarType dtype() const { return impl().dtype(); }
  Device device() const { return impl().device(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_floating_point() const { return is_floating_type(scalar_type()); }
  Layout layout() const { return Layout::Strided; }
  TensorOptions options() const { return TensorOptions().dtype(dtype()).device(device()); }
  int64_t element_size() const { return static_cast<int64_t>(impl().itemsize()); }
  int64_t itemsize() const { return element_size(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * impl().itemsize(); }
  DispatchKeySet key_set() const { return impl().key_set(); }
  const Storage& storage() const { return impl().storage(); }
  // The version counter shared with views; bumped by each in-place operation.
  uint32_t _version() const { return impl().version(); }

  void* data_ptr() const { return impl().data(); }
  void* mutable_data_ptr() const { return impl().data(); }
  const void* const_data_ptr() const { return impl().data(); }
  // Typed access; T must match the dtype exactly (tg::TypeError otherwise).
  template <typename T>
  T* data_ptr() const {
    ScalarType expected = CppTypeToScalarType<std::remove_const_t<T>>::value;
    if (__builtin_expect(expected != scalar_type(), 0)) detail::data_ptr_dtype_error(expected, scalar_type());
    return static_cast<T*>(impl().data());
  }
  template <typename T>
  T* mutable_data_ptr() const { return data_ptr<T>(); }
  template <typename T>
  const T* const_data_ptr() const { return data_ptr<const T>(); }

  uint32_t use_count() const noexcept { return impl_.use_count(); }
  bool is_same(const TensorBase& other) const noexcept { return impl_ == other.impl_; }
  // True when both tensors view the same storage (a view and its base, say).
  bool is_alias_of(const TensorBase& other) const {
    return defined() && other.defined() && storage().get() == other.storage().get();
  }
  // True when the memory is pinned host memory (pin_memory=true, pin_memory()); false for
  // every other tensor, CUDA ones included, and without a CUDA runtime (core/pinned_memory.h).
  bool is_pinned() const;

  // The value of a one-element tensor (copied to the CPU first if needed).
  Scalar item() const;
  template <typename T>
  T item() const {
    return item().to<T>();
  }

  TensorImpl* unsafeGetTensorImpl() const noexcept { return impl_.get(); }
  const IntrusivePtr<TensorImpl>& getIntrusivePtr() const noexcept { return impl_; }
  // "[CPUFloatType [2, 3]]"-like description used in error messages.
  std::string toString() const;

 protected:
  TensorImpl& impl() const {
    if (__builtin_expect(impl_ == nullptr, 0)) detail::undefined_tensor_error("access");
    return *impl_;
  }
  // Like maybe_wrap_dim, but a zero-dim tensor has no size or stride to read at dim 0 or -1.
  int64_t wrap_existing_dim(int64_t dim, const char* op) const {
    const int64_t ndim = this->dim();
    if (__builtin_expect(ndim == 0, 0)) detail::no_dims_error(op, dim);
    return maybe_wrap_dim(dim, ndim, op);
  }

  IntrusivePtr<TensorImpl> impl_;
};

}  // namespace tg
