// The DLPack ABI (dmlc/dlpack, version 1.0): the structs a producer and a consumer exchange
// through a PyCapsule. Written from the specification; only what tensorgen uses.
// Invariant: the layouts are the specification's, field for field.
#pragma once

#include <cstdint>

namespace tg::python::dlpack {

enum DeviceType : int32_t { kCPU = 1, kCUDA = 2, kCUDAHost = 3 };
enum TypeCode : uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kBfloat = 4, kBool = 6 };

struct Device {
  int32_t device_type;
  int32_t device_id;
};
struct DataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct Tensor {
  void* data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; may be null for a compact row-major tensor
  uint64_t byte_offset;
};
// Before 1.0: capsules named "dltensor".
struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};
struct PackVersion {
  uint32_t major;
  uint32_t minor;
};
inline constexpr uint64_t kFlagReadOnly = 1;
// 1.0 and later: capsules named "dltensor_versioned".
struct ManagedTensorVersioned {
  PackVersion version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  uint64_t flags;
  Tensor dl_tensor;
};

}  // namespace tg::python::dlpack
