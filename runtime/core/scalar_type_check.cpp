#include "core/scalar_type_check.h"

#include "core/error.h"

namespace tg {

void check_scalar_type(std::string_view op, ScalarType t) {
  TG_CHECK_TYPE(is_valid_scalar_type(t), "[", op, "] invalid dtype: ScalarType(", static_cast<int>(t),
                ") is not an element type; expected one of uint8, int8, int16, int32, int64, float16, float32, "
                "float64, bool, bfloat16");
}

}  // namespace tg
