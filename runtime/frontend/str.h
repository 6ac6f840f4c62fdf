// tg::str(args...): the arguments streamed into one string, as LibTorch's c10::str.
#pragma once

#include "core/error.h"

namespace tg {

template <typename... Args>
std::string str(const Args&... args) {
  return detail::str(args...);
}

}  // namespace tg
