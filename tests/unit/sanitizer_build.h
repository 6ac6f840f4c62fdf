// Whether this test executable was built with AddressSanitizer (the sanitized CI leg: clang at
// -O0, docs/reliability.md). A finite-difference check of a big operator (gradgradcheck of a
// 3-d convolution) runs there for a quarter of an hour; its numerics are the normal leg's job
// and the leg's other cases run the same kernels, so such a case is marked
// `* doctest::skip(kSanitizedBuild)` and is reported as skipped there, never silently passed.
#pragma once

#include "core/address_sanitizer.h"

namespace test_helpers {

inline constexpr bool kSanitizedBuild = tg::kAddressSanitizer;

}  // namespace test_helpers
