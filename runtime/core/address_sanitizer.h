// Whether this translation unit is built with AddressSanitizer. The CPU block caches turn
// themselves off under it, so that a use after free still reaches ASan instead of a cached block.
#pragma once

namespace tg {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

}  // namespace tg
