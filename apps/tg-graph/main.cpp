// tg-graph: look at, plan and run saved tensorgen graphs (docs/graph.md).
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "core/error.h"

namespace {

constexpr const char* kUsage = R"(usage:
  tg-graph show FILE.yaml
      print the graph: inputs, one line per node with its output types, outputs
  tg-graph plan FILE.yaml [--shapes NAME=AxB,NAME=C,...] [--svg PLAN.svg]
      plan the static runtime's arena for the given input shapes (default: the shapes
      recorded in the file) and print arena, lower bound, naive total and planning time;
      --svg draws the plan (buffers as boxes over node index x offset)
  tg-graph run FILE.yaml --inputs IN.safetensors --out OUT.safetensors
      run the graph through the static runtime; inputs are read by the graph's input
      names, outputs written as output0, output1, ...
)";

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    if (args[0] == "show") return tg::apps::show_command(rest, std::cout);
    if (args[0] == "plan") return tg::apps::plan_command(rest, std::cout);
    if (args[0] == "run") return tg::apps::run_command(rest, std::cout);
    throw tg::apps::UsageError{"unknown command '" + args[0] + "'; expected show, plan or run"};
  } catch (const tg::apps::UsageError& e) {
    std::cerr << "tg-graph: " << e.message << "\n" << kUsage;
    return 2;
  } catch (const tg::Error& e) {
    std::cerr << "tg-graph: " << e.message() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "tg-graph: " << e.what() << "\n";
    return 1;
  }
}
