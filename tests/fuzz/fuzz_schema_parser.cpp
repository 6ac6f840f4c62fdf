// Fuzz target: the runtime's function-schema parser (runtime/dispatch/schema_parser.h). Any text
// parses or raises tg::Error; what parses round-trips through str() as the header promises.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <tensorgen/tensorgen.h>

#include "dispatch/schema_parser.h"
#include "fuzz_target.h"

namespace tg_fuzz {

void fuzz_one(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const tg::FunctionSchema schema = tg::parse_schema(text);
  const std::string printed = schema.str();
  if (!(tg::parse_schema(printed) == schema)) {
    std::fprintf(stderr, "fuzz_schema_parser: '%s' printed as '%s', which parses differently\n", text.c_str(),
                 printed.c_str());
    std::abort();
  }
}

}  // namespace tg_fuzz
