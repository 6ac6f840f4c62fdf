// Whether this test executable was built with AddressSanitizer (the sanitized CI leg: clang at
// -O0, docs/reliability.md). A finite-difference check of a big operator (gradgradcheck of a
// 3-d convolution) runs there for a quarter of an hour; its numerics are the normal leg's job
// and the leg's other cases run the same kernels, so such a case is marked
// `* doctest::skip(kSanitizedBuild)` and is reported as skipped there, never silently passed.
#pragma once

namespace test_helpers {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizedBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif
#else
inline constexpr bool kSanitizedBuild = false;
#endif

}  // namespace test_helpers
