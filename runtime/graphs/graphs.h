// The public API of recorded graphs (docs/graphs.md): Graph, MemPool, Tree / tree(fn), and
// make_graphed_callables. Link libtensorgen_graphs.
#pragma once

#include "graphs/graph.h"
#include "graphs/graphed_callable.h"
#include "graphs/mem_pool.h"
#include "graphs/tree.h"
