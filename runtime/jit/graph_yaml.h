// The saved graph format: YAML, written and read with yaml-cpp. One document holds
// `format`, `inputs`, `nodes` and `outputs` (docs/graph.md shows a file). Loading validates
// the file against the registered schemas; every mistake is a tg::ValueError whose message
// starts "file:line:column: " and says what was expected. Invariant: for every graph g that
// lint_graph accepts, parse_graph_yaml(g.to_yaml(), f) == g.
#pragma once

#include <string>
#include <string_view>

#include "jit/graph.h"

namespace tg::jit {

// Parses the text of a graph file; `file_name` is only used in error messages. This is the
// loader's whole input surface (what a fuzz harness calls).
Graph parse_graph_yaml(std::string_view text, const std::string& file_name);
// Reads and parses the file at `path`.
Graph load(const std::string& path);

}  // namespace tg::jit
