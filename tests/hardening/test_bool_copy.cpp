// Found by the conformance sample under UBSan (session 7): copying a bool tensor whose bytes
// were never written (`empty`, then clone or contiguous) loaded each byte as a C++ bool, which
// is undefined for bytes other than 0 and 1 (UBSan: "load of value 190, which is not a valid
// value for type 'const bool'"; ASan fills fresh memory with 0xbe). A copy between two bool
// tensors now moves bytes, as LibTorch's copy of one dtype to itself does.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include <tensorgen/tensorgen.h>

TEST_CASE("copy: a bool tensor's bytes are moved, never read as bool") {
  tg::Tensor t = tg::empty({4, 3}, tg::TensorOptions().dtype(tg::kBool));
  std::memset(static_cast<void*>(t.data_ptr<bool>()), 0xbe, 12);  // what uninitialized memory may hold
  const tg::Tensor copy = t.t().contiguous();  // a strided copy: the elementwise kernel, not memcpy
  const auto* bytes = reinterpret_cast<const unsigned char*>(copy.data_ptr<bool>());
  CHECK(std::vector<unsigned char>(bytes, bytes + 12) == std::vector<unsigned char>(12, 0xbe));
  // Values are still converted when the dtypes differ.
  tg::Tensor flags = tg::tensor({1.0, 0.0, 2.5}).to(tg::kBool).to(tg::kFloat);
  CHECK(flags.sum().item<float>() == 2.0f);
}
