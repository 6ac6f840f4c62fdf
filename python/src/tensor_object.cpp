// Note [One Python object per tensor]
// PyTorch returns the same Python object for the same tensor for as long as that object lives
// (`t.grad is t.grad`, `x is y` after `y = f(x)` returned x's TensorImpl): its TensorImpl keeps a
// PyObject slot. Here the binding keeps that association itself, in a map TensorImpl* ->
// PyObject* (borrowed), so the runtime knows nothing of Python and TensorImpl is unchanged:
// - converting a Tensor to Python returns the live object of its TensorImpl if there is one,
//   else makes a new object and records it (type_caster<tg::Tensor> in tensor_object.h);
// - the object's deallocation erases its entry: the Tensor type's tp_dealloc is wrapped at
//   import, and Python subclasses (nn.Parameter) reach it through subtype_dealloc;
// - `Tensor.__init__(self, other)` (what nn.Parameter calls) records the new object, taking
//   the entry over from the object it was made from, as torch's _make_subclass does.
// An object holds a strong reference to its TensorImpl, so a key can neither be freed nor
// reused while its entry exists. When the last Python reference goes, the object goes (C++ may
// keep the tensor: a grad, a saved tensor) and a later conversion makes a new object; unlike
// PyTorch, Python attributes set on the old object are not resurrected. Everything here runs
// with the GIL held (conversions and deallocations of Python objects need it).
#include "tensor_object.h"

#include <tsl/robin_map.h>

namespace tg::python {
namespace {

namespace nb = nanobind;

tsl::robin_map<const TensorImpl*, PyObject*>& live_objects() {
  static auto* map = new tsl::robin_map<const TensorImpl*, PyObject*>();  // lives as long as the module
  return *map;
}

destructor g_instance_dealloc = nullptr;
PyObject* g_tensor_type = nullptr;

void tensor_dealloc(PyObject* self) {
  // An instance whose __init__ never ran (or failed) holds no Tensor.
  if (nb::inst_ready(self)) {
    auto& map = live_objects();
    auto it = map.find(nb::inst_ptr<Tensor>(self)->unsafeGetTensorImpl());
    if (it != map.end() && it->second == self) map.erase(it);
  }
  g_instance_dealloc(self);
}

}  // namespace

PyObject* live_object(const TensorImpl* impl) noexcept {
  auto& map = live_objects();
  auto it = map.find(impl);
  return it == map.end() ? nullptr : it->second;
}

void record_object(const TensorImpl* impl, PyObject* object) { live_objects()[impl] = object; }

size_t num_live_objects() noexcept { return live_objects().size(); }

PyObject* tensor_type_object() noexcept { return g_tensor_type; }

void track_tensor_objects(nb::handle tensor_type) {
  g_tensor_type = tensor_type.ptr();
  auto* type = reinterpret_cast<PyTypeObject*>(tensor_type.ptr());
  g_instance_dealloc = type->tp_dealloc;
  type->tp_dealloc = tensor_dealloc;
}

}  // namespace tg::python
