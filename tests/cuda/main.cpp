// The main of the cuda suite's executables. Each runs only where its cases mean something:
// cuda_tests needs a GPU (TG_CUDA_TESTS_NEED_GPU=1), cuda_without_gpu a machine without one.
// Elsewhere it prints one line and exits 77, which Meson counts as a skipped test.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include <tensorgen/tensorgen.h>

int main(int argc, char** argv) {
  const size_t cases = doctest::detail::getRegisteredTests().size();
  const bool available = tg::cuda::is_available();
  if (TG_CUDA_TESTS_NEED_GPU && !available) {
    std::printf("CUDA unavailable: skipping %zu cases\n", cases);
    return 77;
  }
  if (!TG_CUDA_TESTS_NEED_GPU && available) {
    std::printf("CUDA available: skipping %zu cases that need a machine without a GPU\n", cases);
    return 77;
  }
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}
