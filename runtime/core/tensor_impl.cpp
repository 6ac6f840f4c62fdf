#include "core/tensor_impl.h"

#include "core/checked_math.h"
#include "core/error.h"
#include "core/scalar_type_check.h"
#include "core/tensor_creation_hook.h"

namespace tg {

namespace {
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void missing_storage() {
  ::tg::detail::internal_assert_failed(TG_SOURCE_LOCATION, "storage_", "a TensorImpl needs a storage");
}
}  // namespace

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes)
    : storage_(std::move(storage)), dtype_(dtype) {
  // The key set reads the storage's device, so it is set only after the storage is checked.
  if (!storage_) missing_storage();
  if (!is_valid_scalar_type(dtype)) check_scalar_type("tensor", dtype);  // throws
  key_set_ = DispatchKeySet(backend_key_for(storage_->device().type()));
  set_sizes_contiguous(sizes);
  if (detail::tensor_creation_hook_enabled.load(std::memory_order_relaxed) > 0) detail::notify_tensor_created(this);
}

TensorImpl::~TensorImpl() = default;

namespace detail {
namespace {
std::atomic<TensorCreationHook> creation_hook{nullptr};
}  // namespace

std::atomic<int> tensor_creation_hook_enabled{0};

void set_tensor_creation_hook(TensorCreationHook hook) { creation_hook.store(hook); }
void enable_tensor_creation_hook() noexcept { tensor_creation_hook_enabled.fetch_add(1); }
void disable_tensor_creation_hook() noexcept { tensor_creation_hook_enabled.fetch_sub(1); }

void notify_tensor_created(const TensorImpl* created) {
  if (TensorCreationHook hook = creation_hook.load(std::memory_order_relaxed)) hook(created);
}
}  // namespace detail

void contiguous_strides(IntArrayRef sizes, int64_t* strides_out) {
  checked_contiguous_strides("tensor", sizes, strides_out);
}

// Note [One pass for contiguous sizes]
// Contiguous strides computed from checked sizes are always contiguous, so the common case
// (sizes non-negative, neither the strides nor the element count overflowing) needs no
// contiguity scan and no second overflow check: one read-only pass validates, a second
// writes. Anything wrong takes the checked path below, which raises the same errors in the
// same order and leaves the tensor as it always did.
namespace {
// The checks of set_sizes_contiguous, out of line (see Note [One pass for contiguous sizes]).
[[gnu::cold]] [[gnu::noinline]] void check_sizes_non_negative(IntArrayRef sizes) {
  for (int64_t s : sizes) {
    TG_CHECK_VALUE(s >= 0, "[tensor] sizes must be non-negative, got ", sizes);
  }
}
}  // namespace

void TensorImpl::set_sizes_contiguous(IntArrayRef sizes) {
  bool wrong = false, zero = false, numel_overflowed = false;
  int64_t stride = 1, numel = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    const int64_t s = sizes[i];
    wrong |= s < 0;
    zero |= s == 0;
    if (i > 0) wrong |= mul_overflows(stride, s > 1 ? s : 1, &stride);
    numel_overflowed |= mul_overflows(numel, s, &numel);
  }
  if (!wrong && !(numel_overflowed && !zero)) {
    sizes_and_strides_.resize(sizes.size());
    int64_t* size_out = sizes_and_strides_.sizes_data();
    int64_t* stride_out = sizes_and_strides_.strides_data();
    int64_t next = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
      size_out[i] = sizes[i];
      stride_out[i] = next;
      if (i > 0) next *= sizes[i] > 1 ? sizes[i] : 1;
    }
    numel_ = zero ? 0 : numel;
    is_contiguous_ = true;
    return;
  }
  check_sizes_non_negative(sizes);
  sizes_and_strides_.resize(sizes.size());
  std::copy(sizes.begin(), sizes.end(), sizes_and_strides_.sizes_data());
  contiguous_strides(sizes, sizes_and_strides_.strides_data());
  refresh_numel_and_contiguity();
}

void TensorImpl::set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides) {
  TG_CHECK_VALUE(sizes.size() == strides.size(), "[tensor] expected as many strides as sizes, got sizes ", sizes,
                 " and strides ", strides);
  for (int64_t s : sizes) {
    TG_CHECK_VALUE(s >= 0, "[tensor] sizes must be non-negative, got ", sizes);
  }
  sizes_and_strides_.resize(sizes.size());
  std::copy(sizes.begin(), sizes.end(), sizes_and_strides_.sizes_data());
  std::copy(strides.begin(), strides.end(), sizes_and_strides_.strides_data());
  refresh_numel_and_contiguity();
}

void TensorImpl::refresh_numel_and_contiguity() {
  // See Note [Overflow of sizes]: a shape whose numel does not fit is refused here, before any
  // kernel can index past the storage.
  const int64_t n = checked_numel("tensor", sizes());
  numel_ = n;
  // Dims of size 1 may have any stride; an empty tensor is contiguous.
  bool contiguous = true;
  if (n != 0) {
    int64_t expected = 1;
    for (int64_t i = dim() - 1; i >= 0; --i) {
      if (size(i) == 1) continue;
      if (stride(i) != expected) {
        contiguous = false;
        break;
      }
      expected *= size(i);
    }
  }
  is_contiguous_ = contiguous;
}

size_t TensorImpl::required_storage_bytes() const {
  return checked_storage_bytes("tensor", sizes(), strides(), storage_offset_, itemsize());
}

}  // namespace tg
