#include "graphs/recording.h"

#include <tensorgen/tensorgen.h>

namespace tg::graphs {

void Recording::replay() const {
  Stack stack;
  for (const RecordedCall& call : calls_) {
    stack = call.arguments;
    call.kernel->callBoxed(call.op, call.ks, &stack);
    for (size_t i = 0; i < call.copy_into.size(); ++i) {
      const IValue& result = stack[stack.size() - call.copy_into.size() + i];
      if (call.copy_into[i].defined()) call.copy_into[i].copy_(result.toTensor());
    }
  }
}

size_t Recording::num_fallback_calls() const {
  size_t count = 0;
  for (const RecordedCall& call : calls_) count += call.copy_into.empty() ? 0 : 1;
  return count;
}

}  // namespace tg::graphs
