// The subcommands of tg-graph, one function each. Each returns the process exit status and
// writes to `out`; errors are thrown as tg::Error and reported by main().
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tg::apps {

// tg-graph show FILE
int show_command(const std::vector<std::string>& args, std::ostream& out);
// tg-graph plan FILE [--shapes NAME=AxB,...] [--svg PLAN.svg]
int plan_command(const std::vector<std::string>& args, std::ostream& out);
// tg-graph run FILE --inputs IN.safetensors --out OUT.safetensors
int run_command(const std::vector<std::string>& args, std::ostream& out);

// Thrown for a malformed command line; main() prints it with the usage text.
struct UsageError {
  std::string message;
};

}  // namespace tg::apps
