// TensorImpl: the object a Tensor handle points to; a strided view of a Storage.
// Element i of a tensor lives at data() + sum_k(index_k * stride(k)) * element_size(dtype),
// with data() = storage.data() + storage_offset() * element_size(dtype).
// numel() == prod(sizes) and is_contiguous() (row-major: stride(k) == prod(size(k+1:)) for
// every k with size(k) != 1) are computed once, whenever the shape changes.
#pragma once

#include <cstdint>
#include <memory>

#include "core/array_ref.h"
#include "core/device.h"
#include "core/intrusive_ptr.h"
#include "core/scalar_type.h"
#include "core/sizes_and_strides.h"
#include "core/storage.h"
#include "dispatch/dispatch_key_set.h"

namespace tg {

class TensorImpl;

// The slot autograd fills in (runtime/autograd); core only knows it exists. Every result that
// requires grad gets one, so it is pooled (core/pooled_object.h).
class AutogradMetaInterface : public PooledObject {
 public:
  virtual ~AutogradMetaInterface() = default;
  virtual bool requires_grad() const = 0;
};

// The backend dispatch key for tensors on a device.
constexpr DispatchKey backend_key_for(DeviceType type) {
  return type == DeviceType::CUDA ? DispatchKey::CUDA : DispatchKey::CPU;
}

class TensorImpl : public RefCounted {
 public:
  // A tensor over `storage` with the given shape; strides are contiguous, offset is 0.
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes);
  ~TensorImpl() override;

  IntArrayRef sizes() const noexcept { return sizes_and_strides_.sizes(); }
  IntArrayRef strides() const noexcept { return sizes_and_strides_.strides(); }
  int64_t dim() const noexcept { return static_cast<int64_t>(sizes_and_strides_.dim()); }
  int64_t size(int64_t d) const noexcept { return sizes_and_strides_.sizes_data()[d]; }
  int64_t stride(int64_t d) const noexcept { return sizes_and_strides_.strides_data()[d]; }
  int64_t numel() const noexcept { return numel_; }
  bool is_contiguous() const noexcept { return is_contiguous_; }
  int64_t storage_offset() const noexcept { return storage_offset_; }
  ScalarType dtype() const noexcept { return dtype_; }
  size_t itemsize() const noexcept { return element_size(dtype_); }
  Device device() const noexcept { return storage_->device(); }
  DispatchKeySet key_set() const noexcept { return key_set_; }
  const Storage& storage() const noexcept { return storage_; }

  void* data() const noexcept {
    return static_cast<char*>(storage_->data()) + storage_offset_ * static_cast<int64_t>(itemsize());
  }

  // Shape changes. Each recomputes numel and contiguity; none touches the storage.
  void set_sizes_contiguous(IntArrayRef sizes);
  void set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides);
  void set_storage_offset(int64_t offset) noexcept { storage_offset_ = offset; }
  // Gives this tensor new memory (used by out= when the given out is too small to reuse).
  // Reinterprets the element type; set_data (nn::Module::to) pairs it with a new storage.
  void set_dtype(ScalarType dtype) noexcept { dtype_ = dtype; }
  void set_storage(Storage storage) noexcept { storage_ = std::move(storage); }

  // The bytes the current shape reaches, from the start of the storage.
  size_t required_storage_bytes() const;

  // Shared with every tensor on the same storage; bumped by each in-place write.
  uint32_t version() const noexcept { return storage_->version(); }
  void bump_version() const noexcept { storage_->bump_version(); }

  // A "wrapped number" is a zero-dim tensor made from a C++ Scalar: it promotes like a Scalar.
  bool is_wrapped_number() const noexcept { return is_wrapped_number_; }
  void set_wrapped_number(bool value) noexcept { is_wrapped_number_ = value; }

  AutogradMetaInterface* autograd_meta() const noexcept { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> meta) noexcept { autograd_meta_ = std::move(meta); }

  // The tensor this one is a view of (the root: never itself a view), or null. Set by the
  // view kernels for every view, also of tensors without autograd, so that an in-place write
  // into such a view can still rebase its base's history. See Note [Views of tensors
  // without autograd] in docs/autograd.md.
  TensorImpl* view_base() const noexcept { return view_base_.get(); }
  void set_view_base(IntrusivePtr<TensorImpl> base) noexcept { view_base_ = std::move(base); }

  void add_key(DispatchKey k) noexcept { key_set_ = key_set_.add(k); }
  void remove_key(DispatchKey k) noexcept { key_set_ = key_set_.remove(k); }

 private:
  void refresh_numel_and_contiguity();

  Storage storage_;
  int64_t storage_offset_ = 0;
  SizesAndStrides sizes_and_strides_;
  int64_t numel_ = 1;
  ScalarType dtype_;
  bool is_contiguous_ = true;
  bool is_wrapped_number_ = false;
  DispatchKeySet key_set_;
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
  IntrusivePtr<TensorImpl> view_base_;
};

// Contiguous (row-major) strides for a shape.
void contiguous_strides(IntArrayRef sizes, int64_t* strides_out);

}  // namespace tg
