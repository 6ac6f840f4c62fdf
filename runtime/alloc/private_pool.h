// PrivatePool: a caching allocator's pool of segments reserved for recorded graphs
// (PyTorch's MempoolId / PrivatePool). While a pool is routed to a stream, every allocation
// on that stream is carved from the pool's own segments; a block of a private pool returns to
// that pool when freed and is never handed to an ordinary allocation.
// Invariants: use_count >= 0; segments == number of segments whose blocks carry this pool;
// a pool with use_count == 0 and segments == 0 no longer exists.
#pragma once

#include <compare>
#include <cstdint>

#include "alloc/block.h"

namespace tg::alloc {

// The id of a private pool, unique in its allocator (0 is never a pool).
struct MempoolId {
  uint64_t id = 0;
  auto operator<=>(const MempoolId&) const = default;
};

struct PrivatePool {
  explicit PrivatePool(MempoolId id) : id(id) {}

  MempoolId id;
  // Recordings (and the capture itself) that use the pool; the pool's free segments go back
  // to the backend once this reaches 0. See Note [Private pools].
  int use_count = 1;
  int segments = 0;
  BlockPool small_blocks{true};
  BlockPool large_blocks{false};
};

}  // namespace tg::alloc
