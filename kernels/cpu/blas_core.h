// Which kernel set the BLAS library runs, and the repair of OpenBLAS's choice on CPUs newer than
// the library. See Note [OpenBLAS on newer CPUs].
#pragma once

#include <string>

namespace tg::cpu {

// OpenBLAS's name for the kernels it runs ("SkylakeX", "Haswell", "Prescott", ...), or "" when
// the BLAS is not OpenBLAS (or tensorgen was built without one).
std::string blas_core_name();

// What tensorgen did at load time about OpenBLAS's choice: "kept" (the library knows this CPU,
// or OPENBLAS_CORETYPE chose), "upgraded from Prescott to SkylakeX" and the like, or
// "not OpenBLAS". For benchmarks and bug reports.
const std::string& blas_core_selection();

}  // namespace tg::cpu
