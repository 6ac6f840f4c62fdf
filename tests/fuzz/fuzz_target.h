// The contract of every libFuzzer target in tests/fuzz: a target defines fuzz_one(), which may
// return or raise tg::Error for any input; fuzz_main.cpp turns anything else (another exception)
// into a crash that libFuzzer saves and reports. Sanitizers catch memory errors and undefined
// behaviour. Adding a target for a file reader is one file defining fuzz_one and one line in
// tests/fuzz/meson.build (see docs/reliability.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tg_fuzz {

// One input. Precondition: called from one thread at a time (libFuzzer's default).
void fuzz_one(const uint8_t* data, size_t size);

}  // namespace tg_fuzz
