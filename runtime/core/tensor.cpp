#include "core/tensor.h"

#include "core/checked_math.h"
#include "core/scalar_type_check.h"

namespace tg {

namespace {
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void raise_negative_sizes(IntArrayRef sizes) {
  TG_THROW(ValueError, "[empty] sizes must be non-negative, got ", sizes);
}
}  // namespace

// One pass over the sizes checks their signs and computes the byte count; the checks' errors
// (and their order: signs, dtype, overflow) are those of the out-of-line functions, which run
// only when the pass found something wrong.
Tensor make_empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device) {
  bool negative = false, overflowed = false, zero = false;
  int64_t numel = 1;
  for (int64_t s : sizes) {
    negative |= s < 0;
    zero |= s == 0;
    overflowed |= mul_overflows(numel, s, &numel);
  }
  if (negative) raise_negative_sizes(sizes);
  if (!is_valid_scalar_type(dtype)) check_scalar_type("empty", dtype);
  int64_t nbytes = 0;
  if (!zero && (overflowed || mul_overflows(numel, static_cast<int64_t>(element_size(dtype)), &nbytes))) {
    checked_nbytes("empty", sizes, element_size(dtype));  // throws the overflow's error
  }
  Storage storage = make_storage(static_cast<size_t>(nbytes), device);
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes));
}

}  // namespace tg
