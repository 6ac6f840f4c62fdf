#include "core/ivalue.h"

namespace tg {

namespace {
// A heap payload holding its one counted reference (the IValue's).
template <typename T, typename Value>
RefCounted* new_object(Value&& value) {
  RefCounted* object = new T(std::forward<Value>(value));
  object->retain();
  return object;
}
}  // namespace

IValue::IValue(std::string v) : tag_(Tag::String) { payload_.object = new_object<detail::StringStorage>(std::move(v)); }
IValue::IValue(std::vector<int64_t> v) : tag_(Tag::IntList) {
  payload_.object = new_object<detail::ListStorage<int64_t>>(std::move(v));
}
IValue::IValue(std::vector<double> v) : tag_(Tag::DoubleList) {
  payload_.object = new_object<detail::ListStorage<double>>(std::move(v));
}
IValue::IValue(std::vector<bool> v) : tag_(Tag::BoolList) {
  payload_.object = new_object<detail::ListStorage<bool>>(std::move(v));
}
IValue::IValue(std::vector<Tensor> v) : tag_(Tag::TensorList) {
  payload_.object = new_object<detail::ListStorage<Tensor>>(std::move(v));
}
IValue::IValue(std::vector<IValue> v) : tag_(Tag::GenericList) {
  payload_.object = new_object<detail::ListStorage<IValue>>(std::move(v));
}

IValue::IValue(const Scalar& s) {
  if (s.is_floating_point()) {
    tag_ = Tag::Double;
    payload_.d = s.toDouble();
  } else if (s.is_boolean()) {
    tag_ = Tag::Bool;
    payload_.i = s.toBool();
  } else {
    tag_ = Tag::Int;
    payload_.i = s.toLong();
  }
}

void IValue::copy_payload(const IValue& other) {
  if (tag_ == Tag::Tensor) {
    new (&payload_.tensor) Tensor(other.payload_.tensor);
  } else if (holds_object()) {
    payload_.object = other.payload_.object;
    payload_.object->retain();
  } else {
    payload_.i = other.payload_.i;  // copies the double's bits too
  }
}

void IValue::move_payload(IValue&& other) noexcept {
  if (tag_ == Tag::Tensor) {
    new (&payload_.tensor) Tensor(std::move(other.payload_.tensor));
    other.payload_.tensor.~Tensor();
  } else {
    payload_.i = other.payload_.i;  // a heap pointer moves by value
  }
  other.tag_ = Tag::None;
  other.payload_.i = 0;
}

void IValue::destroy() noexcept {
  if (tag_ == Tag::Tensor) {
    payload_.tensor.~Tensor();
  } else if (holds_object()) {
    payload_.object->release();
  }
  tag_ = Tag::None;
}

std::string_view IValue::type_name() const noexcept {
  switch (tag_) {
    case Tag::None: return "None";
    case Tag::Tensor: return "Tensor";
    case Tag::Double: return "float";
    case Tag::Int: return "int";
    case Tag::Bool: return "bool";
    case Tag::String: return "str";
    case Tag::Device: return "Device";
    case Tag::IntList: return "int[]";
    case Tag::DoubleList: return "float[]";
    case Tag::BoolList: return "bool[]";
    case Tag::TensorList: return "Tensor[]";
    case Tag::GenericList: return "list";
  }
  return "invalid";
}

void IValue::wrong_type(std::string_view expected) const {
  TG_THROW(TypeError, "[IValue] expected a boxed value of type ", expected, ", got ", type_name());
}

const Tensor& IValue::toTensor() const& {
  if (!isTensor()) wrong_type("Tensor");
  return payload_.tensor;
}

Tensor IValue::toTensor() && {
  if (!isTensor()) wrong_type("Tensor");
  return std::move(payload_.tensor);
}

double IValue::toDouble() const {
  if (!isDouble()) wrong_type("float");
  return payload_.d;
}

int64_t IValue::toInt() const {
  if (!isInt()) wrong_type("int");
  return payload_.i;
}

bool IValue::toBool() const {
  if (!isBool()) wrong_type("bool");
  return payload_.i != 0;
}

std::string_view IValue::toStringView() const {
  if (!isString()) wrong_type("str");
  return static_cast<const detail::StringStorage*>(payload_.object)->value;
}

Device IValue::toDevice() const {
  if (!isDevice()) wrong_type("Device");
  return Device(static_cast<DeviceType>(payload_.i / 256), static_cast<Device::Index>(payload_.i % 256));
}

Scalar IValue::toScalar() const {
  if (isDouble()) return Scalar(payload_.d);
  if (isInt()) return Scalar(payload_.i);
  if (isBool()) return Scalar(payload_.i != 0);
  wrong_type("Scalar");
}

ScalarType IValue::toScalarType() const {
  int64_t value = toInt();
  TG_CHECK_VALUE(value >= 0 && value < kNumScalarTypes, "[IValue] ", value, " is not a ScalarType");
  return static_cast<ScalarType>(value);
}

IntArrayRef IValue::toIntList() const {
  if (!isIntList()) wrong_type("int[]");
  return list<int64_t>().items;
}

ArrayRef<double> IValue::toDoubleList() const {
  if (!isDoubleList()) wrong_type("float[]");
  return list<double>().items;
}

const std::vector<bool>& IValue::toBoolList() const {
  if (!isBoolList()) wrong_type("bool[]");
  return list<bool>().items;
}

TensorList IValue::toTensorList() const {
  if (!isTensorList()) wrong_type("Tensor[]");
  return list<Tensor>().items;
}

ArrayRef<IValue> IValue::toList() const {
  if (!isList()) wrong_type("list");
  return list<IValue>().items;
}

std::ostream& operator<<(std::ostream& out, const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::None: return out << "None";
    case IValue::Tag::Tensor: return out << v.toTensor().toString();
    case IValue::Tag::Double: return out << v.toDouble();
    case IValue::Tag::Int: return out << v.toInt();
    case IValue::Tag::Bool: return out << (v.toBool() ? "True" : "False");
    case IValue::Tag::String: return out << '"' << v.toStringView() << '"';
    case IValue::Tag::Device: return out << v.toDevice();
    case IValue::Tag::IntList: return out << v.toIntList();
    case IValue::Tag::DoubleList: return out << v.toDoubleList();
    case IValue::Tag::BoolList: {
      out << "[";
      const auto& items = v.toBoolList();
      for (size_t i = 0; i < items.size(); ++i) out << (i ? ", " : "") << (items[i] ? "True" : "False");
      return out << "]";
    }
    case IValue::Tag::TensorList: {
      out << "[";
      TensorList items = v.toTensorList();
      for (size_t i = 0; i < items.size(); ++i) out << (i ? ", " : "") << items[i].toString();
      return out << "]";
    }
    case IValue::Tag::GenericList: return out << v.toList();
  }
  return out;
}

}  // namespace tg
