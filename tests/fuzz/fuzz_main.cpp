// libFuzzer's entry point for every target: see fuzz_target.h.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <typeinfo>

#include <tensorgen/tensorgen.h>

#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    tg_fuzz::fuzz_one(data, size);
  } catch (const tg::Error&) {
    // A clear error is the promised answer to a bad input.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: foreign exception %s: %s\n", typeid(e).name(), e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "fuzz: an exception that is not a std::exception\n");
    std::abort();
  }
  return 0;
}
