// StaticModule: runs a Graph with the dispatch of every node resolved once, at construction,
// and every intermediate tensor placed in one preallocated arena by the memory planner.
// Plans are cached per input signature (dtype, device and sizes of each input). The first run
// with a new signature runs every node functionally, records each value's shape, and plans;
// later runs with that signature call the nodes' out= variants into the arena, so they take
// no memory from the allocator (graph outputs included, when the caller has dropped the
// previous run's outputs). Planned runs call each node's kernel unboxed from pointers into the
// plan's value slots (KernelFunction::callFromArray), below autograd. See Note [Static runtime
// plans] and Note [Processed nodes] in static_module.cpp.
// Threading: run() mutates the plan cache; one thread at a time per StaticModule.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/tensor.h"
#include "dispatch/dispatcher.h"
#include "jit/alias_analysis.h"
#include "jit/graph.h"
#include "jit/static/liveness.h"
#include "jit/static/memory_planner.h"
#include "jit/static/out_variant.h"

namespace tg::jit {

struct StaticModuleOptions {
  // Graph inputs (by name) whose values are fixed for the module's lifetime, as a model's
  // parameters are at inference: they become constants (freeze_inputs, passes/freeze.h) and
  // run() takes the other inputs only, in the graph's order. The module keeps these tensors
  // (not copies) and refuses to run once one of them has been written in place (its version
  // counter moved): see Note [Frozen inputs]. Results stay bit for bit eager's.
  std::map<std::string, Tensor> frozen_inputs;
};

class StaticModule {
 public:
  // Resolves each node's operator, kernel and out variant; throws tg::Error for a node whose
  // operator is not registered, or for a frozen input the graph does not have.
  explicit StaticModule(Graph graph, StaticModuleOptions options = {});
  ~StaticModule();
  StaticModule(const StaticModule&) = delete;
  StaticModule& operator=(const StaticModule&) = delete;

  // Throws tg::Error when the inputs do not match the graph's inputs in number, dtype, device
  // or rank.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);

  // The graph run: the one given, frozen and folded when options.frozen_inputs is not empty.
  const Graph& graph() const { return graph_; }
  size_t num_plans() const { return plans_.size(); }
  // The plan of the last run's signature (nullptr before the first run).
  const PlanReport* last_plan() const;
  // The buffers the last plan placed, in the order of its offsets.
  const std::vector<ManagedBuffer>* last_managed_buffers() const;
  // Nodes that run through an out= variant into planned memory in the last plan.
  int64_t num_out_variant_nodes() const;

 private:
  struct ResolvedNode;
  struct ProcessedNode;
  struct Plan;
  using Signature = std::vector<int64_t>;

  void signature_of(const std::vector<Tensor>& inputs, Signature& sig) const;
  bool matches_signature(const Signature& sig, const std::vector<Tensor>& inputs) const;
  void process_nodes(Plan& plan) const;
  std::vector<Tensor> run_functional(const std::vector<Tensor>& inputs, std::vector<Tensor>& values);
  std::unique_ptr<Plan> make_plan(const std::vector<Tensor>& values) const;
  std::vector<Tensor> run_planned(Plan& plan, const std::vector<Tensor>& inputs);
  void check_inputs(const std::vector<Tensor>& inputs) const;
  void bind_inputs(const std::vector<Tensor>& inputs, std::vector<Tensor>& values) const;
  void check_frozen() const;

  struct FrozenInput {
    std::string name;
    Tensor tensor;
    uint32_t version;
  };

  Graph graph_;
  std::vector<FrozenInput> frozen_;
  AliasInfoOfGraph aliases_;
  std::vector<int> constant_ids_;
  std::vector<ResolvedNode> nodes_;
  std::map<Signature, std::unique_ptr<Plan>> plans_;
  Plan* last_plan_ = nullptr;
  Signature signature_scratch_;  // reused by run(), so looking up a plan allocates nothing
};

}  // namespace tg::jit
