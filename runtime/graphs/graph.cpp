#include "graphs/graph.h"

#include "core/error.h"
#include "graphs/cuda_graph_backend.h"
#include "graphs/interceptor.h"

namespace tg::graphs {

Graph::Graph(Device device) : device_(device) {
  TG_CHECK(device.is_cpu() || device.is_cuda(), "[graphs::Graph] graphs record CPU or CUDA work, got ", device);
  if (device.is_cuda()) {
    cuda_ = std::make_unique<detail::CudaGraphBackend>(device);
    device_ = detail::resolve_cuda_device(device, "graphs::Graph");
  }
}

Graph::~Graph() = default;

void Graph::capture_begin(std::optional<MemPool> pool) {
  TG_CHECK(!captured_ && !capturing(), "[Graph::capture_begin] this graph already ",
           captured_ ? "holds a capture" : "is capturing", "; make a new Graph for another region");
  TG_CHECK(!pool || pool->device() == device_, "[Graph::capture_begin] the pool is on ", pool ? pool->device() : device_,
           " but this graph captures work on ", device_, ": share pools between graphs of one device");
  pool_ = pool ? std::move(*pool) : MemPool(device_);
  if (cuda_) {
    cuda_->capture_begin(pool_->id());
  } else {
    scope_ = std::make_unique<detail::CaptureScope>(recording_, *pool_);
  }
}

void Graph::capture_end() {
  TG_CHECK(capturing(), "[Graph::capture_end] capture_begin was not called on this graph");
  if (cuda_) {
    cuda_->capture_end();
  } else {
    scope_.reset();
  }
  captured_ = true;
}

void Graph::replay() const {
  TG_CHECK(captured_, "[Graph::replay] nothing was captured: call capture_begin and capture_end first");
  if (cuda_) {
    cuda_->replay();
  } else {
    recording_.replay();
  }
}

bool Graph::capturing() const { return scope_ != nullptr || (cuda_ && cuda_->capturing()); }

size_t Graph::num_nodes() const { return cuda_ ? cuda_->num_nodes() : recording_.num_calls(); }

const MemPool& Graph::pool() const {
  TG_CHECK(pool_.has_value(), "[Graph::pool] the graph has no pool before capture_begin");
  return *pool_;
}

}  // namespace tg::graphs
