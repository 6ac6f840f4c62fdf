#include "core/parallel.h"

#include "core/error.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tg {

void set_num_threads(int n) {
  TG_CHECK_VALUE(n >= 1, "[set_num_threads] expected at least 1 thread, got ", n);
#ifdef _OPENMP
  omp_set_num_threads(n);
#endif
}

int get_num_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

}  // namespace tg
