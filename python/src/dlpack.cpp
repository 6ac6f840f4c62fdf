// DLPack both ways, zero copy: Tensor.__dlpack__ / __dlpack_device__ and from_dlpack.
// An exported capsule owns a tensor handle (so the memory outlives the tensor object);
// an imported tensor owns the producer's managed tensor and calls its deleter when the
// last tensor on that memory is gone.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>

#include <optional>
#include <vector>

#include "core/error.h"
#include "dlpack_abi.h"
#include "ops/tensor_from_values.h"
#include "python_types.h"
#include "tensorgen/ops.h"

namespace tg::python {
namespace {

namespace nb = nanobind;

dlpack::DataType to_dl_dtype(ScalarType type) {
  auto bits = static_cast<uint8_t>(element_size(type) * 8);
  switch (type) {
    case kBool: return {dlpack::kBool, 8, 1};
    case kByte: return {dlpack::kUInt, 8, 1};
    case kBFloat16: return {dlpack::kBfloat, 16, 1};
    case kHalf:
    case kFloat:
    case kDouble: return {dlpack::kFloat, bits, 1};
    default: return {dlpack::kInt, bits, 1};
  }
}

ScalarType from_dl_dtype(dlpack::DataType d) {
  TG_CHECK_WITH(TypeError, d.lanes == 1, "[from_dlpack] vector dtypes (lanes = ", d.lanes, ") are not supported");
  switch (d.code) {
    case dlpack::kBool: if (d.bits == 8) return kBool; break;
    case dlpack::kUInt: if (d.bits == 8) return kByte; break;
    case dlpack::kBfloat: if (d.bits == 16) return kBFloat16; break;
    case dlpack::kFloat:
      if (d.bits == 16) return kHalf;
      if (d.bits == 32) return kFloat;
      if (d.bits == 64) return kDouble;
      break;
    case dlpack::kInt:
      if (d.bits == 8) return kChar;
      if (d.bits == 16) return kShort;
      if (d.bits == 32) return kInt;
      if (d.bits == 64) return kLong;
      break;
  }
  TG_CHECK_WITH(TypeError, false, "[from_dlpack] unsupported DLPack dtype (code ", int(d.code), ", ", int(d.bits),
                " bits); tensorgen holds bool, uint8, int8-64, float16, bfloat16, float32 and float64");
  __builtin_unreachable();
}

dlpack::Device to_dl_device(Device device) {
  if (device.is_cuda()) return {dlpack::kCUDA, device.has_index() ? device.index() : 0};
  return {dlpack::kCPU, 0};
}

// What an exported capsule owns: the tensor and the shape and strides the struct points to.
template <typename Managed>
struct Exported {
  Managed managed{};
  Tensor tensor;
  std::vector<int64_t> shape, strides;
};

template <typename Managed>
Managed* export_tensor(const Tensor& t) {
  auto* e = new Exported<Managed>();
  e->tensor = t;
  e->shape = t.sizes().vec();
  e->strides = t.strides().vec();
  dlpack::Tensor& dl = e->managed.dl_tensor;
  dl.data = t.data_ptr();
  dl.device = to_dl_device(t.device());
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = to_dl_dtype(t.scalar_type());
  dl.shape = e->shape.data();
  dl.strides = e->strides.data();
  dl.byte_offset = 0;  // data already points at the first element
  e->managed.manager_ctx = e;
  e->managed.deleter = [](Managed* self) { delete static_cast<Exported<Managed>*>(self->manager_ctx); };
  return &e->managed;
}

// The capsule's destructor: frees the tensor unless a consumer took it (and renamed it).
template <typename Managed>
void capsule_destructor(PyObject* capsule, const char* name) {
  if (!PyCapsule_IsValid(capsule, name)) return;  // consumed: the consumer calls the deleter
  auto* managed = static_cast<Managed*>(PyCapsule_GetPointer(capsule, name));
  if (managed && managed->deleter) managed->deleter(managed);
}

nb::object to_dlpack(const Tensor& t, std::optional<nb::tuple> max_version) {
  TG_CHECK_WITH(TypeError, !t.requires_grad(),
                "[__dlpack__] cannot export a tensor that requires grad: call .detach() first (as PyTorch asks)");
  bool versioned = max_version && max_version->size() >= 1 && nb::cast<int>((*max_version)[0]) >= 1;
  if (versioned) {
    auto* managed = export_tensor<dlpack::ManagedTensorVersioned>(t);
    managed->version = {1, 0};
    managed->flags = 0;
    return nb::steal(PyCapsule_New(managed, "dltensor_versioned", [](PyObject* c) {
      capsule_destructor<dlpack::ManagedTensorVersioned>(c, "dltensor_versioned");
    }));
  }
  auto* managed = export_tensor<dlpack::ManagedTensor>(t);
  return nb::steal(PyCapsule_New(managed, "dltensor", [](PyObject* c) {
    capsule_destructor<dlpack::ManagedTensor>(c, "dltensor");
  }));
}

template <typename Managed>
Tensor import_managed(Managed* managed) {
  const dlpack::Tensor& dl = managed->dl_tensor;
  TG_CHECK_WITH(ValueError, dl.device.device_type == dlpack::kCPU || dl.device.device_type == dlpack::kCUDA ||
                                dl.device.device_type == dlpack::kCUDAHost,
                "[from_dlpack] unsupported device type ", dl.device.device_type, " (tensorgen takes CPU and CUDA)");
  ScalarType dtype = from_dl_dtype(dl.dtype);
  std::vector<int64_t> sizes(dl.shape, dl.shape + dl.ndim), strides(static_cast<size_t>(dl.ndim));
  if (dl.strides) {
    strides.assign(dl.strides, dl.strides + dl.ndim);
  } else {
    int64_t stride = 1;
    for (int32_t i = dl.ndim - 1; i >= 0; --i) {
      strides[static_cast<size_t>(i)] = stride;
      stride *= sizes[static_cast<size_t>(i)];
    }
  }
  // Everything that can refuse the tensor is checked before the memory is adopted: once
  // from_blob owns it, a failure would free it under the producer's capsule.
  int64_t low = 0, high = 0, numel = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    TG_CHECK_WITH(ValueError, sizes[i] >= 0, "[from_dlpack] negative size ", sizes[i], " in dim ", i);
    TG_CHECK_WITH(ValueError, strides[i] >= 0 || sizes[i] <= 1,
                  "[from_dlpack] tensorgen has no negative strides, got strides ", ArrayRef<int64_t>(strides),
                  ": pass a copy (e.g. numpy.ascontiguousarray)");
    numel *= sizes[i];
    if (sizes[i] == 0) continue;
    if (strides[i] < 0) strides[i] = 0;  // size 1: the stride is never used
    high += (sizes[i] - 1) * strides[i];
  }
  auto* first = static_cast<char*>(dl.data) + dl.byte_offset;
  auto item = static_cast<int64_t>(element_size(dtype));
  Device device = dl.device.device_type == dlpack::kCUDA ? Device(DeviceType::CUDA, static_cast<Device::Index>(dl.device.device_id))
                                                         : Device(kCPU);
  int64_t span = numel == 0 ? 0 : high - low + 1;
  // The producer's deleter may touch Python objects (NumPy's does), and the last tensor may
  // die on any thread or inside a call that released the GIL: take the GIL for it.
  auto release = [managed](void*) {
    if (!managed->deleter || !Py_IsInitialized()) return;
    nb::gil_scoped_acquire gil;
    managed->deleter(managed);
  };
  Tensor base = tg::from_blob(first + low * item, {span}, release, TensorOptions().dtype(dtype).device(device));
  return base.as_strided(sizes, strides, -low);
}

// Imports a managed tensor whose capsule was just marked consumed. A refusal (checked before
// the memory is adopted) gives the capsule back to the producer, unconsumed.
template <typename Managed>
Tensor import_adopted(Managed* managed, PyObject* capsule, const char* name) {
  try {
    return import_managed(managed);
  } catch (...) {
    PyCapsule_SetName(capsule, name);
    throw;
  }
}

Tensor from_capsule(nb::handle capsule) {
  PyObject* c = capsule.ptr();
  if (PyCapsule_IsValid(c, "dltensor_versioned")) {
    auto* managed = static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(c, "dltensor_versioned"));
    TG_CHECK_WITH(ValueError, managed->version.major == 1, "[from_dlpack] DLPack version ", managed->version.major,
                  ".", managed->version.minor, " is not supported (tensorgen reads 1.x)");
    PyCapsule_SetName(c, "used_dltensor_versioned");  // from here on the tensor owns it
    return import_adopted(managed, c, "dltensor_versioned");
  }
  if (PyCapsule_IsValid(c, "dltensor")) {
    auto* managed = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(c, "dltensor"));
    PyCapsule_SetName(c, "used_dltensor");
    return import_adopted(managed, c, "dltensor");
  }
  TG_CHECK_WITH(TypeError, false, "[from_dlpack] expected a DLPack capsule (named \"dltensor\" or "
                "\"dltensor_versioned\", not yet consumed), got ", python_type_name(c));
  __builtin_unreachable();
}

}  // namespace

void bind_dlpack(nb::module_& m, nb::class_<Tensor>& cls) {
  cls.def("__dlpack__",
          [](const Tensor& t, nb::handle /*stream*/, std::optional<nb::tuple> max_version, nb::handle /*dl_device*/,
             nb::handle copy) {
            TG_CHECK_WITH(ValueError, copy.is_none() || !nb::cast<bool>(copy),
                          "[__dlpack__] copy=True is not supported: tensorgen exports without copying");
            return to_dlpack(t, max_version);
          },
          nb::kw_only(), nb::arg("stream").none() = nb::none(), nb::arg("max_version").none() = nb::none(),
          nb::arg("dl_device").none() = nb::none(), nb::arg("copy").none() = nb::none())
      .def("__dlpack_device__", [](const Tensor& t) {
        dlpack::Device d = to_dl_device(t.device());
        return nb::make_tuple(d.device_type, d.device_id);
      });
  m.def("_from_dlpack_capsule", &from_capsule, nb::arg("capsule"));
}

}  // namespace tg::python
