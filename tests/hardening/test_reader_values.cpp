// Found while writing the safetensors fuzz target: a BOOL tensor whose bytes are not 0 or 1
// loaded as it was, and every kernel that then read it loaded an invalid C++ bool (undefined
// behaviour, UBSan's -fsanitize=bool). The reader now refuses such a file, naming the tensor.
#include <doctest/doctest.h>

#include <string>

#include <tensorgen/tensorgen.h>

#include "../unit/ops_test_helpers.h"
#include "serialize/safetensors.h"

namespace {

using ops_test::contains;
using ops_test::thrown;

// A safetensors file of one BOOL tensor "flags" holding `data` (one byte per element).
std::string bool_file(const std::string& data) {
  const std::string header = R"({"flags":{"dtype":"BOOL","shape":[)" + std::to_string(data.size()) +
                             R"(],"data_offsets":[0,)" + std::to_string(data.size()) + "]}}";
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return bytes + header + data;
}

}  // namespace

TEST_CASE("safetensors: BOOL bytes other than 0 and 1 are refused, naming the tensor") {
  const tg::serialize::SafetensorsFile good = tg::serialize::load_from_bytes(bool_file(std::string("\1\0\1", 3)));
  REQUIRE(good.tensors.size() == 1);
  CHECK(good.tensors[0].second.sum().item<int64_t>() == 2);
  const std::string message = thrown<tg::ValueError>(
      [] { tg::serialize::load_from_bytes(bool_file(std::string("\1\0\2", 3)), "flags.safetensors"); });
  CHECK(contains(message, "flags.safetensors"));
  CHECK(contains(message, "tensor \"flags\" of dtype BOOL: expected bytes 0 or 1, got 2 at element 2"));
}
