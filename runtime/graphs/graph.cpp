#include "graphs/graph.h"

#include "core/error.h"
#include "graphs/interceptor.h"

namespace tg::graphs {

Graph::Graph() = default;

Graph::~Graph() = default;

void Graph::capture_begin(std::optional<MemPool> pool) {
  TG_CHECK(!captured_ && !scope_, "[Graph::capture_begin] this graph already ",
           captured_ ? "holds a capture" : "is capturing", "; make a new Graph for another region");
  pool_ = pool ? std::move(*pool) : MemPool();
  scope_ = std::make_unique<detail::CaptureScope>(recording_, *pool_);
}

void Graph::capture_end() {
  TG_CHECK(scope_ != nullptr, "[Graph::capture_end] capture_begin was not called on this graph");
  scope_.reset();
  captured_ = true;
}

void Graph::replay() const {
  TG_CHECK(captured_, "[Graph::replay] nothing was captured: call capture_begin and capture_end first");
  recording_.replay();
}

const MemPool& Graph::pool() const {
  TG_CHECK(pool_.has_value(), "[Graph::pool] the graph has no pool before capture_begin");
  return *pool_;
}

}  // namespace tg::graphs
