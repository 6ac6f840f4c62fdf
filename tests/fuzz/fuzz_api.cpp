// Fuzz target: random operator calls through the boxed dispatcher. The first two bytes pick the
// operator (every registered one is reachable, no per-operator code), the rest build its
// arguments (random_arguments.h); a call that raises something other than tg::Error aborts.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "fuzz_target.h"
#include "random_arguments.h"

namespace tg_fuzz {

void fuzz_one(const uint8_t* data, size_t size) {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> kept;
    for (std::string& name : tg::Dispatcher::singleton().allOperatorNames()) {
      if (!is_excluded(name)) kept.push_back(std::move(name));
    }
    return kept;
  }();
  ByteSource source(data, size);
  const std::string& name = names[source.below(names.size())];
  const tg::OperatorHandle op = tg::Dispatcher::singleton().findSchemaOrThrow(name);
  const CallOutcome outcome = call_with_random_arguments(op, source);
  if (outcome.kind == CallOutcome::ForeignException) {
    std::fprintf(stderr, "fuzz_api: %s raised %s\n", name.c_str(), outcome.message.c_str());
    std::abort();
  }
}

}  // namespace tg_fuzz
