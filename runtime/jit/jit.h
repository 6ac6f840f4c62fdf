// The program level in one include: capture (trace), the Graph IR and its passes, the YAML
// format, and the static runtime with its memory planner. See docs/graph.md.
#pragma once

#include "jit/alias_analysis.h"
#include "jit/graph.h"
#include "jit/graph_yaml.h"
#include "jit/passes/constant_folding.h"
#include "jit/passes/dead_code_elimination.h"
#include "jit/passes/freeze.h"
#include "jit/passes/lint.h"
#include "jit/static/liveness.h"
#include "jit/static/memory_planner.h"
#include "jit/static/static_module.h"
#include "jit/trace_module.h"
#include "jit/tracer.h"
