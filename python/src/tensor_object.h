// One Python object per live tensor (`t.grad is t.grad`, as in PyTorch): the nanobind caster
// of tg::Tensor returns the object its TensorImpl already has. See Note [One Python object per
// tensor] in tensor_object.cpp. Every file that converts a Tensor to or from Python sees this
// specialization through tensor_type.h or python_types.h, which include it first.
#pragma once

#include <nanobind/nanobind.h>

#include <new>
#include <type_traits>
#include <utility>

#include "core/tensor.h"

namespace tg::python {

// The live Python object of `impl` (borrowed), or null.
PyObject* live_object(const TensorImpl* impl) noexcept;
// Makes `object` (a Tensor instance holding `impl`) the one that conversions return.
void record_object(const TensorImpl* impl, PyObject* object);
// Wraps the Tensor type's deallocation so that a dying object forgets its entry. Once, at import.
void track_tensor_objects(nanobind::handle tensor_type);
// How many tensors have a live Python object (for tests: entries must not outlive objects).
size_t num_live_objects() noexcept;
// The Tensor type (set by track_tensor_objects).
PyObject* tensor_type_object() noexcept;

}  // namespace tg::python

namespace nanobind::detail {

template <>
struct type_caster<tg::Tensor> : type_caster_base<tg::Tensor> {
  template <typename T>
  static handle from_cpp(T&& value, rv_policy, cleanup_list* cleanup) noexcept {
    const tg::Tensor* tensor = nullptr;
    if constexpr (is_pointer_v<std::remove_reference_t<T>>) {
      tensor = value;
      if (!tensor) return none().release();
    } else {
      tensor = &value;
    }
    const tg::TensorImpl* impl = tensor->unsafeGetTensorImpl();
    if (impl)
      if (PyObject* object = tg::python::live_object(impl)) return handle(object).inc_ref();
    // A Tensor is a handle: the new object owns a copy (or the moved value), never a
    // reference into C++ memory, whatever policy the binding asked for. The instance is made
    // directly (nb_type_put would look the type up by typeid and weigh the policy per call).
    (void) cleanup;
    constexpr bool movable = !is_pointer_v<std::remove_reference_t<T>> && std::is_rvalue_reference_v<T&&> &&
                             !std::is_const_v<std::remove_reference_t<T>>;
    try {
      object instance = inst_alloc(handle(tg::python::tensor_type_object()));
      if constexpr (movable)
        new (inst_ptr<tg::Tensor>(instance)) tg::Tensor(std::move(value));
      else
        new (inst_ptr<tg::Tensor>(instance)) tg::Tensor(*tensor);
      inst_mark_ready(instance);
      if (impl) tg::python::record_object(impl, instance.ptr());
      return instance.release();
    } catch (python_error& e) {
      e.restore();
    } catch (const std::bad_alloc&) {
      PyErr_NoMemory();
    }
    return handle();
  }
};

}  // namespace nanobind::detail
