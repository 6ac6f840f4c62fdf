// bench_graph without LibTorch: the column says how to get it.
#include "bench_graph_peer.h"

namespace bench::graph_peer {

double libtorch_us(const std::string&, const std::vector<HostTensor>&, long, int, int, std::string* note) {
  *note = "LibTorch not built in: tools/setup-libtorch.sh, then meson configure build -Dlibtorch_dir=<its last line>";
  return -1;
}

}  // namespace bench::graph_peer
