// Tests for memory and tensors: the CPU allocator and DataPtr, the allocator registry,
// Storage, SizesAndStrides (inline and heap), TensorImpl's shape bookkeeping (numel,
// contiguity, offsets, required bytes) and the tg::Tensor handle.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/allocator.h"
#include "core/cuda_availability.h"
#include "core/error.h"
#include "core/sizes_and_strides.h"
#include "core/storage.h"
#include "core/tensor.h"
#include "core/tensor_impl.h"

namespace {

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::vector<int64_t> vec(tg::IntArrayRef ref) { return ref.vec(); }

// A deleter whose context is a counter: each run adds one.
void count_deletion(void* context) { ++*static_cast<int*>(context); }

// Stands in for a device backend: host memory that reports itself as cuda:0.
class FakeCudaAllocator final : public tg::Allocator {
 public:
  tg::DataPtr allocate(size_t nbytes) override {
    ++allocations;
    if (nbytes == 0) return tg::DataPtr(nullptr, nullptr, nullptr, tg::Device(tg::kCUDA, 0));
    void* data = std::malloc(nbytes);
    return tg::DataPtr(data, data, &std::free, tg::Device(tg::kCUDA, 0));
  }
  int allocations = 0;
};

// Installs an allocator for a device type for one test and puts back the previous one after.
struct AllocatorGuard {
  AllocatorGuard(tg::DeviceType type, tg::Allocator* allocator) : type_(type), previous_(installed(type)) {
    tg::set_allocator(type, allocator);
  }
  ~AllocatorGuard() { tg::set_allocator(type_, previous_); }

  // The allocator installed for `type`, or nullptr.
  static tg::Allocator* installed(tg::DeviceType type) {
    try {
      return tg::get_allocator(type);
    } catch (const tg::NotImplementedError&) {
      return nullptr;
    }
  }

 private:
  tg::DeviceType type_;
  tg::Allocator* previous_;
};

tg::Tensor empty(tg::IntArrayRef sizes, tg::ScalarType dtype = tg::kFloat) {
  return tg::make_empty_tensor(sizes, dtype, tg::Device(tg::kCPU));
}

// A second tensor over `base`'s storage, as a view would be.
tg::Tensor view_of(const tg::Tensor& base, tg::IntArrayRef sizes, tg::IntArrayRef strides, int64_t offset) {
  tg::Tensor view(tg::make_intrusive<tg::TensorImpl>(base.storage(), base.dtype(), sizes));
  view.unsafeGetTensorImpl()->set_sizes_and_strides(sizes, strides);
  view.unsafeGetTensorImpl()->set_storage_offset(offset);
  return view;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Allocator and DataPtr

TEST_CASE("allocator: the CPU allocator aligns every allocation to 64 bytes") {
  tg::Allocator* allocator = tg::cpu_allocator();
  static_assert(tg::kCpuAlignment == 64);
  std::vector<tg::DataPtr> held;  // keep them alive so the allocator cannot hand out one address
  for (size_t nbytes : {1u, 2u, 3u, 7u, 8u, 15u, 63u, 64u, 65u, 100u, 127u, 128u, 1000u, 4095u, 4096u, 65537u,
                        1u << 20, (1u << 20) + 3}) {
    CAPTURE(nbytes);
    tg::DataPtr ptr = allocator->allocate(nbytes);
    REQUIRE(ptr);
    CHECK(reinterpret_cast<uintptr_t>(ptr.get()) % 64 == 0);
    CHECK(ptr.device() == tg::Device(tg::kCPU));
    std::memset(ptr.get(), 0xab, nbytes);  // the whole range is writable (ASan checks this)
    held.push_back(std::move(ptr));
  }
}

TEST_CASE("allocator: zero bytes gives a null DataPtr on the right device") {
  tg::DataPtr ptr = tg::cpu_allocator()->allocate(0);
  CHECK_FALSE(ptr);
  CHECK(ptr.get() == nullptr);
  CHECK((ptr.deleter() == nullptr));
  CHECK(ptr.device().is_cpu());
}

TEST_CASE("allocator: a DataPtr runs its deleter exactly once, with its context") {
  int deletions = 0;
  int payload = 0;
  {
    tg::DataPtr ptr(&payload, &deletions, &count_deletion, tg::Device(tg::kCPU));
    CHECK(ptr.get() == &payload);
    CHECK(ptr.context() == &deletions);
    CHECK((ptr.deleter() == &count_deletion));  // parenthesised: doctest cannot print function pointers
    CHECK(deletions == 0);
  }
  CHECK(deletions == 1);
}

TEST_CASE("allocator: moving a DataPtr moves ownership; the deleter still runs once") {
  int deletions = 0;
  int payload = 0;
  {
    tg::DataPtr a(&payload, &deletions, &count_deletion, tg::Device(tg::kCUDA, 1));
    tg::DataPtr b(std::move(a));
    CHECK_FALSE(a);  // NOLINT(bugprone-use-after-move): moved-from is null by contract
    CHECK((a.deleter() == nullptr));
    CHECK(b.get() == &payload);
    CHECK(b.device() == tg::Device(tg::kCUDA, 1));

    tg::DataPtr c;
    c = std::move(b);
    CHECK_FALSE(b);  // NOLINT(bugprone-use-after-move)
    CHECK(c.get() == &payload);
    CHECK(deletions == 0);
  }
  CHECK(deletions == 1);

  // Assigning over a live DataPtr frees what it held, once.
  int first = 0, second = 0;
  {
    tg::DataPtr x(&payload, &first, &count_deletion, tg::Device(tg::kCPU));
    x = tg::DataPtr(&payload, &second, &count_deletion, tg::Device(tg::kCPU));
    CHECK(first == 1);
    CHECK(second == 0);
  }
  CHECK(first == 1);
  CHECK(second == 1);
}

TEST_CASE("allocator: get_allocator gives the CPU allocator and refuses CUDA without a backend") {
  CHECK(tg::get_allocator(tg::kCPU) == tg::cpu_allocator());
  bool has_cuda_backend = true;
  try {
    tg::get_allocator(tg::kCUDA);
  } catch (const tg::NotImplementedError& e) {
    has_cuda_backend = false;
    CHECK(e.message().find("[get_allocator]") == 0);
    CHECK(contains(e.message(), "cuda"));
  }
  if (tg::cuda::is_available()) return;
  // The same error reaches users who ask for a CUDA tensor; a CUDA build on a machine without
  // a GPU has the allocator, which says CUDA is not available.
  if (has_cuda_backend) {
    std::string message;
    try {
      tg::make_storage(16, tg::Device("cuda:0"));
    } catch (const tg::Error& e) {
      message = e.message();
    }
    CHECK(contains(message, "CUDA is not available"));
  } else {
    CHECK_THROWS_AS(tg::make_storage(16, tg::Device("cuda:0")), tg::NotImplementedError);
    CHECK_THROWS_AS(tg::make_empty_tensor({2}, tg::kFloat, tg::Device("cuda")), tg::NotImplementedError);
  }
}

TEST_CASE("allocator: set_allocator installs a backend's allocator and can remove it") {
  FakeCudaAllocator fake;
  const tg::Allocator* before = AllocatorGuard::installed(tg::kCUDA);  // the CUDA backend's, or none
  {
    AllocatorGuard guard(tg::kCUDA, &fake);
    CHECK(tg::get_allocator(tg::kCUDA) == &fake);
    tg::Tensor t = tg::make_empty_tensor({2, 3}, tg::kFloat, tg::Device("cuda:0"));
    CHECK(fake.allocations == 1);
    CHECK(t.is_cuda());
    CHECK(t.device() == tg::Device(tg::kCUDA, 0));
    CHECK(t.key_set().has(tg::DispatchKey::CUDA));
    CHECK_FALSE(t.key_set().has(tg::DispatchKey::CPU));
    // Growing device memory in place is left to the backend.
    CHECK_THROWS_AS(t.storage()->grow_to(1024), tg::NotImplementedError);
    CHECK(t.storage()->nbytes() == 24);
  }
  CHECK(AllocatorGuard::installed(tg::kCUDA) == before);
}

// ---------------------------------------------------------------------------------------------
// Storage

TEST_CASE("storage: make_storage allocates nbytes on the device") {
  tg::Storage storage = tg::make_storage(100, tg::Device(tg::kCPU));
  CHECK(storage->nbytes() == 100);
  CHECK(storage->data() != nullptr);
  CHECK(storage->device().is_cpu());
  CHECK(storage->allocator() == tg::cpu_allocator());
  CHECK(storage->resizable());
  CHECK(storage->version() == 0);
  CHECK(storage.use_count() == 1);

  tg::Storage empty_storage = tg::make_storage(0, tg::Device(tg::kCPU));
  CHECK(empty_storage->nbytes() == 0);
  CHECK(empty_storage->data() == nullptr);
}

TEST_CASE("storage: grow_to keeps the old bytes and never shrinks") {
  tg::Storage storage = tg::make_storage(16, tg::Device(tg::kCPU));
  auto* bytes = static_cast<unsigned char*>(storage->data());
  for (int i = 0; i < 16; ++i) bytes[i] = static_cast<unsigned char>(i + 1);

  storage->grow_to(8);  // smaller: nothing happens
  CHECK(storage->nbytes() == 16);
  CHECK(storage->data() == bytes);

  storage->grow_to(4096);
  CHECK(storage->nbytes() == 4096);
  auto* grown = static_cast<unsigned char*>(storage->data());
  REQUIRE(grown != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(grown) % 64 == 0);
  for (int i = 0; i < 16; ++i) {
    CAPTURE(i);
    CHECK(grown[i] == i + 1);
  }
  grown[4095] = 7;  // the new tail is usable

  tg::Storage from_empty = tg::make_storage(0, tg::Device(tg::kCPU));
  from_empty->grow_to(32);
  CHECK(from_empty->nbytes() == 32);
  CHECK(from_empty->data() != nullptr);
}

TEST_CASE("storage: memory owned outside tensorgen cannot grow") {
  int deletions = 0;
  float user_memory[4] = {1, 2, 3, 4};
  tg::Storage storage = tg::make_intrusive<tg::StorageImpl>(
      tg::DataPtr(user_memory, &deletions, &count_deletion, tg::Device(tg::kCPU)), sizeof(user_memory), nullptr);
  CHECK_FALSE(storage->resizable());
  CHECK_NOTHROW(storage->grow_to(sizeof(user_memory)));
  CHECK_THROWS_AS(storage->grow_to(sizeof(user_memory) + 1), tg::Error);
  try {
    storage->grow_to(64);
  } catch (const tg::Error& e) {
    CHECK(contains(e.message(), "from_blob"));
    CHECK(contains(e.message(), "16 bytes"));
    CHECK(contains(e.message(), "needs 64"));
  }
  CHECK(storage->data() == user_memory);
  storage.reset();
  CHECK(deletions == 1);  // the user's deleter ran when the storage died
}

TEST_CASE("storage: the version counter is shared by every tensor on the storage") {
  tg::Storage storage = tg::make_storage(64, tg::Device(tg::kCPU));
  tg::Tensor a(tg::make_intrusive<tg::TensorImpl>(storage, tg::kFloat, tg::IntArrayRef({4})));
  tg::Tensor b(tg::make_intrusive<tg::TensorImpl>(storage, tg::kFloat, tg::IntArrayRef({2, 2})));
  CHECK(a._version() == 0);
  a.unsafeGetTensorImpl()->bump_version();
  CHECK(a._version() == 1);
  CHECK(b._version() == 1);
  storage->bump_version();
  CHECK(b._version() == 2);
  CHECK(storage.use_count() == 3);  // `storage`, a and b
  a.reset();
  CHECK(storage.use_count() == 2);
}

// ---------------------------------------------------------------------------------------------
// SizesAndStrides

namespace {
void fill(tg::SizesAndStrides& s, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  s.resize(sizes.size());
  std::copy(sizes.begin(), sizes.end(), s.sizes_data());
  std::copy(strides.begin(), strides.end(), s.strides_data());
}
}  // namespace

TEST_CASE("sizes_and_strides: up to 5 dims inline, more on the heap, each with its own values") {
  tg::SizesAndStrides s;
  CHECK(s.dim() == 0);
  CHECK(s.sizes().empty());

  const std::vector<int64_t> sizes5 = {1, 2, 3, 4, 5}, strides5 = {10, 20, 30, 40, 50};
  fill(s, sizes5, strides5);
  CHECK(vec(s.sizes()) == sizes5);
  CHECK(vec(s.strides()) == strides5);

  const std::vector<int64_t> sizes7 = {1, 2, 3, 4, 5, 6, 7}, strides7 = {70, 60, 50, 40, 30, 20, 10};
  fill(s, sizes7, strides7);
  CHECK(s.dim() == 7);
  CHECK(vec(s.sizes()) == sizes7);
  CHECK(vec(s.strides()) == strides7);

  // Shrinking within the heap capacity keeps sizes and strides apart.
  const std::vector<int64_t> sizes6 = {6, 5, 4, 3, 2, 1}, strides6 = {1, 2, 3, 4, 5, 6};
  fill(s, sizes6, strides6);
  CHECK(vec(s.sizes()) == sizes6);
  CHECK(vec(s.strides()) == strides6);

  // Back to inline.
  const std::vector<int64_t> sizes2 = {8, 9}, strides2 = {9, 1};
  fill(s, sizes2, strides2);
  CHECK(vec(s.sizes()) == sizes2);
  CHECK(vec(s.strides()) == strides2);
}

TEST_CASE("sizes_and_strides: copies are deep across inline and heap storage") {
  const std::vector<int64_t> sizes7 = {1, 2, 3, 4, 5, 6, 7}, strides7 = {7, 6, 5, 4, 3, 2, 1};
  const std::vector<int64_t> sizes3 = {3, 4, 5}, strides3 = {20, 5, 1};
  const std::vector<int64_t> sizes6 = {2, 2, 2, 2, 2, 2}, strides6 = {32, 16, 8, 4, 2, 1};

  tg::SizesAndStrides heap;
  fill(heap, sizes7, strides7);
  tg::SizesAndStrides inline_dims;
  fill(inline_dims, sizes3, strides3);

  SUBCASE("copy-construct a heap one") {
    tg::SizesAndStrides copy(heap);
    CHECK(vec(copy.sizes()) == sizes7);
    CHECK(vec(copy.strides()) == strides7);
    CHECK(copy.sizes_data() != heap.sizes_data());
    copy.sizes_data()[0] = 99;
    CHECK(heap.sizes()[0] == 1);
  }
  SUBCASE("assign heap over inline") {
    tg::SizesAndStrides target = inline_dims;
    target = heap;
    CHECK(vec(target.sizes()) == sizes7);
    CHECK(vec(target.strides()) == strides7);
  }
  SUBCASE("assign inline over heap") {
    tg::SizesAndStrides target = heap;
    target = inline_dims;
    CHECK(vec(target.sizes()) == sizes3);
    CHECK(vec(target.strides()) == strides3);
  }
  SUBCASE("assign a smaller heap over a larger heap") {
    tg::SizesAndStrides smaller;
    fill(smaller, sizes6, strides6);
    tg::SizesAndStrides target = heap;
    target = smaller;
    CHECK(vec(target.sizes()) == sizes6);
    CHECK(vec(target.strides()) == strides6);
    // And a larger one back over it.
    target = heap;
    CHECK(vec(target.sizes()) == sizes7);
    CHECK(vec(target.strides()) == strides7);
  }
  SUBCASE("self-assignment and move fall back to a copy") {
    tg::SizesAndStrides target = heap;
    tg::SizesAndStrides& alias = target;
    target = alias;
    CHECK(vec(target.sizes()) == sizes7);
    tg::SizesAndStrides moved(std::move(target));
    CHECK(vec(moved.sizes()) == sizes7);
    CHECK(vec(moved.strides()) == strides7);
  }
}

// ---------------------------------------------------------------------------------------------
// TensorImpl

TEST_CASE("tensor_impl: make_empty_tensor gives contiguous strides, numel and dim") {
  tg::Tensor t = empty({2, 3, 4});
  CHECK(t.defined());
  CHECK(vec(t.sizes()) == std::vector<int64_t>{2, 3, 4});
  CHECK(vec(t.strides()) == std::vector<int64_t>{12, 4, 1});
  CHECK(t.numel() == 24);
  CHECK(t.dim() == 3);
  CHECK(t.ndimension() == 3);
  CHECK(t.is_contiguous());
  CHECK(t.storage_offset() == 0);
  CHECK(t.dtype() == tg::kFloat);
  CHECK(t.storage()->nbytes() == 24 * sizeof(float));
  CHECK(t.unsafeGetTensorImpl()->required_storage_bytes() == 24 * sizeof(float));
}

TEST_CASE("tensor_impl: a zero-dim tensor has one element and no sizes") {
  tg::Tensor t = empty({}, tg::kDouble);
  CHECK(t.dim() == 0);
  CHECK(t.numel() == 1);
  CHECK(t.sizes().empty());
  CHECK(t.is_contiguous());
  CHECK(t.storage()->nbytes() == 8);
  CHECK(t.nbytes() == 8);
  // A scalar has no dims to ask about (PyTorch: "dimension specified as 0 but tensor has no dimensions").
  CHECK_THROWS_AS(t.size(0), tg::IndexError);
  CHECK_THROWS_AS(t.size(-1), tg::IndexError);
  CHECK_THROWS_AS(t.stride(0), tg::IndexError);
  try {
    t.size(0);
    FAIL("expected tg::IndexError");
  } catch (const tg::IndexError& e) {
    CHECK(e.message() == "[size] dimension specified as 0 but tensor has no dimensions");
  }
}

TEST_CASE("tensor_impl: a tensor with a zero dim is empty and contiguous") {
  tg::Tensor t = empty({3, 0, 2});
  CHECK(t.numel() == 0);
  CHECK(t.is_contiguous());
  CHECK(vec(t.strides()) == std::vector<int64_t>{2, 2, 1});  // a zero size counts as one for strides
  CHECK(t.storage()->nbytes() == 0);
  CHECK(t.nbytes() == 0);
  CHECK(t.unsafeGetTensorImpl()->required_storage_bytes() == 0);
}

TEST_CASE("tensor_impl: 5 dims stay inline; 7 dims go to the heap with correct strides") {
  tg::Tensor five = empty({2, 3, 4, 5, 6});
  CHECK(vec(five.strides()) == std::vector<int64_t>{360, 120, 30, 6, 1});
  CHECK(five.numel() == 720);

  tg::Tensor seven = empty({2, 1, 3, 1, 4, 5, 2}, tg::kChar);
  CHECK(seven.dim() == 7);
  CHECK(vec(seven.sizes()) == std::vector<int64_t>{2, 1, 3, 1, 4, 5, 2});
  CHECK(vec(seven.strides()) == std::vector<int64_t>{120, 120, 40, 40, 10, 2, 1});
  CHECK(seven.numel() == 240);
  CHECK(seven.is_contiguous());
  CHECK(seven.size(-1) == 2);
  CHECK(seven.stride(0) == 120);
  CHECK(seven.storage()->nbytes() == 240);

  // Reshaping in place across the inline/heap boundary, both ways.
  tg::TensorImpl* impl = seven.unsafeGetTensorImpl();
  impl->set_sizes_contiguous({4, 60});
  CHECK(vec(seven.sizes()) == std::vector<int64_t>{4, 60});
  CHECK(vec(seven.strides()) == std::vector<int64_t>{60, 1});
  impl->set_sizes_contiguous({2, 2, 2, 2, 3, 5});
  CHECK(vec(seven.strides()) == std::vector<int64_t>{120, 60, 30, 15, 5, 1});
  CHECK(seven.numel() == 240);
}

TEST_CASE("tensor_impl: contiguity is recomputed after set_sizes_and_strides") {
  tg::Tensor t = empty({2, 3});
  tg::TensorImpl* impl = t.unsafeGetTensorImpl();

  SUBCASE("transposed") {
    impl->set_sizes_and_strides({3, 2}, {1, 3});
    CHECK_FALSE(t.is_contiguous());
    CHECK(t.numel() == 6);
  }
  SUBCASE("expanded with stride 0") {
    impl->set_sizes_and_strides({4, 3}, {0, 1});
    CHECK_FALSE(t.is_contiguous());
    CHECK(t.numel() == 12);
    CHECK(impl->required_storage_bytes() == 3 * sizeof(float));
  }
  SUBCASE("size-1 dims may have any stride") {
    impl->set_sizes_and_strides({1, 6}, {42, 1});
    CHECK(t.is_contiguous());
    impl->set_sizes_and_strides({2, 1, 3}, {3, 0, 1});
    CHECK(t.is_contiguous());
    impl->set_sizes_and_strides({1, 1}, {7, 9});
    CHECK(t.is_contiguous());
  }
  SUBCASE("an empty tensor is contiguous whatever its strides") {
    impl->set_sizes_and_strides({0, 3}, {1, 5});
    CHECK(t.is_contiguous());
    CHECK(t.numel() == 0);
  }
  SUBCASE("a gap between rows is not contiguous") {
    impl->set_sizes_and_strides({2, 2}, {3, 1});
    CHECK_FALSE(t.is_contiguous());
    CHECK(impl->required_storage_bytes() == 5 * sizeof(float));
  }
  SUBCASE("back to contiguous strides") {
    impl->set_sizes_and_strides({3, 2}, {1, 3});
    REQUIRE_FALSE(t.is_contiguous());
    impl->set_sizes_and_strides({3, 2}, {2, 1});
    CHECK(t.is_contiguous());
  }
  SUBCASE("heap dims with a non-contiguous stride") {
    impl->set_sizes_and_strides({1, 1, 2, 1, 1, 3, 1}, {1, 1, 1, 1, 1, 2, 1});
    CHECK_FALSE(t.is_contiguous());
    impl->set_sizes_and_strides({1, 1, 2, 1, 1, 3, 1}, {9, 9, 3, 9, 9, 1, 9});
    CHECK(t.is_contiguous());
  }
}

TEST_CASE("tensor_impl: set_sizes_and_strides checks its arguments") {
  tg::Tensor t = empty({2, 3});
  tg::TensorImpl* impl = t.unsafeGetTensorImpl();
  CHECK_THROWS_AS(impl->set_sizes_and_strides({2, 3}, {1}), tg::ValueError);
  CHECK_THROWS_AS(impl->set_sizes_and_strides({2, -3}, {3, 1}), tg::ValueError);
  CHECK_THROWS_AS(impl->set_sizes_contiguous({-1}), tg::ValueError);
  // A rejected change leaves the shape alone.
  CHECK(vec(t.sizes()) == std::vector<int64_t>{2, 3});
  CHECK(vec(t.strides()) == std::vector<int64_t>{3, 1});
}

TEST_CASE("tensor_impl: storage_offset moves data() by whole elements") {
  tg::Tensor t = empty({10}, tg::kDouble);
  char* base = static_cast<char*>(t.storage()->data());
  CHECK(t.data_ptr() == base);
  tg::Tensor tail = view_of(t, {4}, {2}, 3);  // elements 3, 5, 7, 9
  CHECK(tail.storage_offset() == 3);
  CHECK(tail.data_ptr() == base + 3 * sizeof(double));
  CHECK(tail.data_ptr<double>() == t.data_ptr<double>() + 3);
  CHECK(tail.unsafeGetTensorImpl()->required_storage_bytes() == 10 * sizeof(double));

  double* values = t.data_ptr<double>();
  for (int i = 0; i < 10; ++i) values[i] = i;
  const double* seen = tail.const_data_ptr<double>();
  for (int i = 0; i < 4; ++i) CHECK(seen[i * tail.stride(0)] == 3 + 2 * i);

  tail.unsafeGetTensorImpl()->set_storage_offset(0);
  CHECK(tail.data_ptr() == base);
}

TEST_CASE("tensor_impl: required_storage_bytes is the furthest byte reached plus one element") {
  tg::Tensor t = empty({4, 5}, tg::kShort);
  CHECK(t.unsafeGetTensorImpl()->required_storage_bytes() == 40);
  tg::Tensor column = view_of(t, {4}, {5}, 2);  // t[:, 2]
  CHECK(column.unsafeGetTensorImpl()->required_storage_bytes() == (2 + 3 * 5 + 1) * 2);
  tg::Tensor scalar = view_of(t, {}, {}, 7);
  CHECK(scalar.unsafeGetTensorImpl()->required_storage_bytes() == 16);
}

TEST_CASE("tensor_impl: negative sizes are a ValueError that shows the sizes") {
  CHECK_THROWS_AS(empty({2, -1}), tg::ValueError);
  try {
    empty({3, -2});
    FAIL("expected tg::ValueError");
  } catch (const tg::ValueError& e) {
    CHECK(e.message().find("[empty]") == 0);
    CHECK(contains(e.message(), "[3, -2]"));
  }
  CHECK_THROWS_AS(tg::make_intrusive<tg::TensorImpl>(tg::make_storage(0, tg::kCPU), tg::kFloat, tg::IntArrayRef({-4})),
                  tg::ValueError);
}

TEST_CASE("tensor_impl: a TensorImpl without a storage is an internal error, not a crash") {
  try {
    tg::make_intrusive<tg::TensorImpl>(tg::Storage(), tg::kFloat, tg::IntArrayRef({2}));
    FAIL("expected tg::Error");
  } catch (const tg::Error& e) {
    CHECK(contains(e.message(), "needs a storage"));
    CHECK(contains(e.message(), "bug in tensorgen"));
  }
}

TEST_CASE("tensor_impl: a CPU tensor's key set holds the CPU key only") {
  tg::Tensor t = empty({2});
  CHECK(t.key_set().has(tg::DispatchKey::CPU));
  CHECK_FALSE(t.key_set().has(tg::DispatchKey::CUDA));
  CHECK_FALSE(t.key_set().has(tg::DispatchKey::Autograd));
  CHECK(t.key_set() == tg::DispatchKeySet(tg::DispatchKey::CPU));
  tg::TensorImpl* impl = t.unsafeGetTensorImpl();
  impl->add_key(tg::DispatchKey::Autograd);
  CHECK(t.key_set().has(tg::DispatchKey::Autograd));
  impl->remove_key(tg::DispatchKey::Autograd);
  CHECK(t.key_set() == tg::DispatchKeySet(tg::DispatchKey::CPU));
  CHECK(tg::backend_key_for(tg::kCUDA) == tg::DispatchKey::CUDA);
  CHECK(tg::backend_key_for(tg::kCPU) == tg::DispatchKey::CPU);
}

TEST_CASE("tensor_impl: wrapped-number flag and autograd slot start empty") {
  tg::Tensor t = empty({});
  tg::TensorImpl* impl = t.unsafeGetTensorImpl();
  CHECK_FALSE(impl->is_wrapped_number());
  impl->set_wrapped_number(true);
  CHECK(impl->is_wrapped_number());
  CHECK(impl->autograd_meta() == nullptr);

  struct Meta final : tg::AutogradMetaInterface {
    bool requires_grad() const override { return true; }
  };
  impl->set_autograd_meta(std::make_unique<Meta>());
  REQUIRE(impl->autograd_meta() != nullptr);
  CHECK(impl->autograd_meta()->requires_grad());
}

TEST_CASE("tensor_impl: set_storage swaps the memory and drops the old storage") {
  tg::Tensor t = empty({4});
  tg::Storage old = t.storage();
  CHECK(old.use_count() == 2);
  tg::Storage bigger = tg::make_storage(1024, tg::kCPU);
  t.unsafeGetTensorImpl()->set_storage(bigger);
  CHECK(t.storage().get() == bigger.get());
  CHECK(old.use_count() == 1);
  CHECK(bigger.use_count() == 2);
  CHECK(t.data_ptr() == bigger->data());
}

// ---------------------------------------------------------------------------------------------
// The Tensor handle

TEST_CASE("tensor: a default tensor is undefined and says so when used") {
  tg::Tensor t;
  CHECK_FALSE(t.defined());
  CHECK(t.use_count() == 0);
  CHECK(t.unsafeGetTensorImpl() == nullptr);
  CHECK(t.toString() == "UndefinedTensor");
  CHECK_THROWS_AS(t.sizes(), tg::Error);
  CHECK_THROWS_AS(t.dim(), tg::Error);
  CHECK_THROWS_AS(t.data_ptr<float>(), tg::Error);
  try {
    (void)t.numel();
    FAIL("expected tg::Error");
  } catch (const tg::Error& e) {
    CHECK(e.message().find("[tensor]") == 0);
    CHECK(contains(e.message(), "undefined tensor"));
    CHECK(contains(e.message(), "tg::empty"));
  }
  CHECK_FALSE(t.is_alias_of(t));
  CHECK(t.is_same(tg::Tensor()));
}

TEST_CASE("tensor: copies share the impl and bump the use count") {
  tg::Tensor a = empty({2, 2});
  CHECK(a.use_count() == 1);
  {
    tg::Tensor b = a;
    CHECK(a.use_count() == 2);
    CHECK(b.is_same(a));
    CHECK(b.unsafeGetTensorImpl() == a.unsafeGetTensorImpl());
    tg::Tensor c;
    c = b;
    CHECK(a.use_count() == 3);
    tg::Tensor d = std::move(c);
    CHECK(a.use_count() == 3);
    CHECK_FALSE(c.defined());  // NOLINT(bugprone-use-after-move)
  }
  CHECK(a.use_count() == 1);
  tg::Tensor other = empty({2, 2});
  CHECK_FALSE(other.is_same(a));
  a.reset();
  CHECK_FALSE(a.defined());
}

TEST_CASE("tensor: is_alias_of is true for tensors on the same storage") {
  tg::Tensor base = empty({6});
  tg::Tensor view = view_of(base, {3}, {2}, 0);
  tg::Tensor unrelated = empty({6});
  CHECK(view.is_alias_of(base));
  CHECK(base.is_alias_of(view));
  CHECK(base.is_alias_of(base));
  CHECK_FALSE(view.is_same(base));
  CHECK_FALSE(unrelated.is_alias_of(base));
  CHECK_FALSE(base.is_alias_of(tg::Tensor()));
}

TEST_CASE("tensor: data_ptr<T> checks the element type") {
  tg::Tensor f = empty({3});
  CHECK(f.data_ptr<float>() == f.data_ptr());
  CHECK(f.mutable_data_ptr<float>() == f.data_ptr());
  CHECK(f.const_data_ptr<float>() == f.const_data_ptr());
  CHECK_THROWS_AS(f.data_ptr<double>(), tg::TypeError);
  CHECK_THROWS_AS(f.data_ptr<int32_t>(), tg::TypeError);  // same size, different type
  try {
    f.data_ptr<int64_t>();
    FAIL("expected tg::TypeError");
  } catch (const tg::TypeError& e) {
    CHECK(e.message().find("[data_ptr]") == 0);
    CHECK(contains(e.message(), "int64"));
    CHECK(contains(e.message(), "float32"));
  }
  tg::Tensor h = empty({3}, tg::kHalf);
  CHECK_NOTHROW(h.data_ptr<tg::Half>());
  CHECK_THROWS_AS(h.data_ptr<tg::BFloat16>(), tg::TypeError);
  tg::Tensor b = empty({3}, tg::kBool);
  CHECK_NOTHROW(b.data_ptr<bool>());
  CHECK_THROWS_AS(b.data_ptr<uint8_t>(), tg::TypeError);
}

TEST_CASE("tensor: size and stride wrap negative dims and check the range") {
  tg::Tensor t = empty({2, 3});
  CHECK(t.size(0) == 2);
  CHECK(t.size(-1) == 3);
  CHECK(t.size(-2) == 2);
  CHECK(t.stride(-1) == 1);
  CHECK(t.stride(0) == 3);
  CHECK_THROWS_AS(t.size(5), tg::IndexError);
  CHECK_THROWS_AS(t.size(2), tg::IndexError);
  CHECK_THROWS_AS(t.size(-3), tg::IndexError);
  CHECK_THROWS_AS(t.stride(2), tg::IndexError);
  try {
    t.size(5);
    FAIL("expected tg::IndexError");
  } catch (const tg::IndexError& e) {
    CHECK(e.message() == "[size] dimension out of range (expected to be in range of [-2, 1], but got 5)");
  }
  try {
    t.stride(-3);
    FAIL("expected tg::IndexError");
  } catch (const tg::IndexError& e) {
    CHECK(e.message().find("[stride]") == 0);
  }
}

TEST_CASE("tensor: options, element size, nbytes and type queries") {
  tg::Tensor t = empty({2, 5}, tg::kLong);
  const tg::TensorOptions options = t.options();
  CHECK(options.dtype() == tg::kLong);
  CHECK(options.device() == tg::Device(tg::kCPU));
  CHECK(options.has_dtype());
  CHECK(options.has_device());
  CHECK(t.element_size() == 8);
  CHECK(t.itemsize() == 8);
  CHECK(t.nbytes() == 80);
  CHECK(t.scalar_type() == tg::kLong);
  CHECK(t.is_cpu());
  CHECK_FALSE(t.is_cuda());
  CHECK_FALSE(t.is_floating_point());
  CHECK(t.layout() == tg::kStrided);
  CHECK(empty({1}, tg::kBFloat16).is_floating_point());
  CHECK(empty({3}, tg::kBFloat16).element_size() == 2);

  // nbytes counts the elements the tensor shows, not the storage behind it.
  tg::Tensor part = view_of(t, {3}, {1}, 2);
  CHECK(part.nbytes() == 24);
  CHECK(part.storage()->nbytes() == 80);
}

TEST_CASE("tensor: _version is shared with tensors on the same storage") {
  tg::Tensor base = empty({4});
  tg::Tensor view = view_of(base, {2}, {1}, 1);
  tg::Tensor unrelated = empty({4});
  CHECK(base._version() == 0);
  view.unsafeGetTensorImpl()->bump_version();
  CHECK(base._version() == 1);
  CHECK(view._version() == 1);
  CHECK(unrelated._version() == 0);
  base.unsafeGetTensorImpl()->bump_version();
  CHECK(view._version() == 2);
}

TEST_CASE("tensor: toString names dtype, device and sizes") {
  CHECK(empty({2, 3}).toString() == "Tensor(dtype=float32, device=cpu, sizes=[2, 3])");
  CHECK(empty({}, tg::kLong).toString() == "Tensor(dtype=int64, device=cpu, sizes=[])");
}

TEST_CASE("tensor: the storage and impl are freed when the last handle goes") {
  tg::Tensor t = empty({16});
  tg::Storage storage = t.storage();
  CHECK(storage.use_count() == 2);
  tg::IntrusivePtr<tg::TensorImpl> impl = t.getIntrusivePtr();
  CHECK(t.use_count() == 2);
  t.reset();
  CHECK(impl.use_count() == 1);
  impl.reset();
  CHECK(storage.use_count() == 1);
}
