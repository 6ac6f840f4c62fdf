// Tests of the pooled objects (core/pooled_object.h): TensorImpl, StorageImpl, AutogradMeta
// and autograd nodes take their memory from the per-thread small block cache. A freed
// object's block serves the next object of its size class on the thread; objects too large
// for the cache, and objects freed on another thread, still work. Where the cache is off
// (AddressSanitizer builds) the reuse checks are skipped with a message and the rest runs.
#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <thread>

#include "autograd/functions.h"
#include "autograd/node.h"
#include "core/intrusive_ptr.h"
#include "core/pooled_object.h"
#include "core/small_block_cache.h"
#include "tensorgen/tensorgen.h"

namespace cache = tg::small_block_cache;

namespace {

bool skip_reuse_checks() {
  if (cache::caching_enabled()) return false;
  MESSAGE("skipped: the small block cache is off in this build (AddressSanitizer), so blocks are not reused");
  return true;
}

struct Large : tg::RefCounted {
  char bytes[cache::kMaxBytes + 1000];
};

}  // namespace

TEST_CASE("raw blocks: any size, 64-byte aligned; a freed small block serves the next request of its class") {
  for (size_t n : {size_t{1}, size_t{48}, size_t{200}, size_t{4096}, size_t{5000}, size_t{1} << 20}) {
    void* block = cache::allocate_raw(n);
    REQUIRE(block != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(block) % tg::kCpuAlignment == 0);
    std::memset(block, 0x5a, n);  // the whole request is writable (ASan checks it)
    cache::release_raw(block, n);
  }
  void* first = cache::allocate_raw(200);
  cache::release_raw(first, 200);
  void* again = cache::allocate_raw(256);  // the same class, 129..256 bytes
  if (!skip_reuse_checks()) CHECK(again == first);
  cache::release_raw(again, 256);
}

TEST_CASE("a tensor's TensorImpl block serves the next tensor made on the thread") {
  const tg::TensorImpl* old_impl = nullptr;
  {
    tg::Tensor dropped = tg::empty({3});
    old_impl = dropped.unsafeGetTensorImpl();
  }
  tg::Tensor b = tg::empty({3});
  if (!skip_reuse_checks()) CHECK(b.unsafeGetTensorImpl() == old_impl);
  b.fill_(2.0);
  CHECK(b.sum().item<float>() == 6.0f);  // the reused blocks hold a working tensor
}

TEST_CASE("counted objects larger than the cache's blocks, and objects freed on another thread") {
  tg::IntrusivePtr<Large> large = tg::make_intrusive<Large>();
  std::memset(large->bytes, 1, sizeof(large->bytes));
  CHECK(large->use_count() == 1);
  large = nullptr;  // back to the system: no class holds it

  tg::Tensor made_here = tg::arange(10);
  std::thread([t = std::move(made_here)]() mutable { t = tg::Tensor(); }).join();  // freed there
  tg::Tensor made_there;
  std::thread([&] { made_there = tg::arange(5); }).join();  // that thread has ended
  CHECK(made_there.sum().item<int64_t>() == 10);
  made_there = tg::Tensor();  // its blocks join this thread's cache
}

TEST_CASE("autograd nodes are pooled: a freed node's block serves the next node of its size") {
  using tg::autograd::NotImplemented;
  auto node = tg::autograd::make_node<NotImplemented>("pooled_node_test", tg::autograd::edge_list{});
  CHECK(node->name() == "NotImplemented");
  const void* first = node.get();
  std::weak_ptr<tg::autograd::Node> weak = node;
  node.reset();
  CHECK(weak.expired());
  weak.reset();  // the block (node and counts) goes back with the last weak pointer
  auto next = tg::autograd::make_node<NotImplemented>("pooled_node_test", tg::autograd::edge_list{});
  if (!skip_reuse_checks()) CHECK(next.get() == first);

  // Recording and running a graph through pooled metadata, nodes and accumulators.
  tg::Tensor leaf = tg::ones({2}).requires_grad_(true);
  for (double factor : {3.0, 4.0}) {
    tg::Tensor y = (leaf * factor).sum();
    y.backward();
  }
  CHECK(leaf.grad()[0].item<float>() == 7.0f);
  CHECK(leaf.grad()[1].item<float>() == 7.0f);
}
