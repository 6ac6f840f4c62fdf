// safetensors round trips: every dtype, non-contiguous and empty tensors, metadata, the byte
// layout the format specifies (checked by hand here, independently of the reader), and
// tg::save / tg::load for tensors and lists.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;
namespace ser = tg::serialize;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tg_test_serialize_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

uint64_t read_u64_le(const std::string& bytes, size_t at) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[at + static_cast<size_t>(i)]);
  return n;
}

}  // namespace

TEST_CASE("serialize: every dtype round-trips through a file, values and shapes intact") {
  ser::NamedTensors tensors;
  for (tg::ScalarType dtype : kAllDtypes) {
    tensors.emplace_back(std::string(tg::to_string(dtype)), make({0, 1, -2, 3, 1, 0}, {2, 3}, dtype));
  }
  const std::string path = temp_path("dtypes.safetensors");
  ser::save_tensors(tensors, path, {{"format", "pt"}, {"note", "\"quoted\" \xC3\xA9"}});
  const ser::SafetensorsFile loaded = ser::load_file(path);
  REQUIRE(loaded.tensors.size() == tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    CAPTURE(tensors[i].first);
    CHECK(loaded.tensors[i].first == tensors[i].first);
    CHECK(loaded.tensors[i].second.scalar_type() == tensors[i].second.scalar_type());
    CHECK(shape(loaded.tensors[i].second) == Ints{2, 3});
    CHECK(values(loaded.tensors[i].second) == values(tensors[i].second));
  }
  CHECK(loaded.metadata.at("format") == "pt");
  CHECK(loaded.metadata.at("note") == "\"quoted\" \xC3\xA9");
  std::remove(path.c_str());
}

TEST_CASE("serialize: the bytes follow the format (length prefix, aligned JSON header, raw little-endian data)") {
  Tensor a = make({1.5, -2}, {2}, tg::kFloat), b = make({7}, {1, 1}, tg::kLong);
  const std::string bytes = ser::save_to_bytes({{"a", a}, {"b", b}});
  const uint64_t n = read_u64_le(bytes, 0);
  CHECK(n % 8 == 0);
  REQUIRE(bytes.size() == 8 + n + 8 + 8);
  const std::string header = bytes.substr(8, n);
  CHECK(header.find(R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})") != std::string::npos);
  CHECK(header.find(R"("b":{"dtype":"I64","shape":[1,1],"data_offsets":[8,16]})") != std::string::npos);
  float f[2];
  std::memcpy(f, bytes.data() + 8 + n, 8);
  CHECK(f[0] == 1.5f);
  CHECK(f[1] == -2.0f);
  CHECK(read_u64_le(bytes, 8 + n + 8) == 7);
}

TEST_CASE("serialize: strided, zero-dim, empty and grad-requiring tensors are saved as their values") {
  Tensor base = make({1, 2, 3, 4, 5, 6}, {2, 3}, tg::kDouble);
  Tensor transposed = base.transpose(0, 1);
  Tensor scalar = make({42}, {}, tg::kInt);
  Tensor empty = tg::zeros({0, 3});
  Tensor leaf = make({1, 2}, {2}).requires_grad_();
  const ser::SafetensorsFile loaded =
      ser::load_from_bytes(ser::save_to_bytes({{"t", transposed}, {"s", scalar}, {"e", empty}, {"leaf", leaf * 2}}));
  REQUIRE(loaded.tensors.size() == 4);
  CHECK(values(loaded.tensors[0].second) == Values{1, 4, 2, 5, 3, 6});
  CHECK(shape(loaded.tensors[0].second) == Ints{3, 2});
  CHECK(shape(loaded.tensors[1].second) == Ints{});
  CHECK(values(loaded.tensors[1].second) == Values{42});
  CHECK(shape(loaded.tensors[2].second) == Ints{0, 3});
  CHECK(values(loaded.tensors[3].second) == Values{2, 4});
  CHECK_FALSE(loaded.tensors[3].second.requires_grad());
}

TEST_CASE("serialize: tg::save / tg::load of a tensor and of a list") {
  const std::string one = temp_path("one.safetensors"), list = temp_path("list.safetensors");
  Tensor t = make({3, 1, 4}, {3});
  tg::save(t, one);
  Tensor back;
  tg::load(back, one);
  CHECK(values(back) == Values{3, 1, 4});

  std::vector<Tensor> many;
  for (int i = 0; i < 12; ++i) many.push_back(make({static_cast<double>(i)}, {1}, tg::kLong));
  tg::save(many, list);
  std::vector<Tensor> many_back;
  tg::load(many_back, list);
  REQUIRE(many_back.size() == 12);
  for (int i = 0; i < 12; ++i) CHECK(values(many_back[static_cast<size_t>(i)]) == Values{static_cast<double>(i)});

  CHECK(contains(thrown<tg::ValueError>([&] { tg::load(back, list); }), "expected a file of one tensor, got 12"));
  ser::save_tensors({{"weight", t}}, list);
  CHECK(contains(thrown<tg::ValueError>([&] { tg::load(many_back, list); }),
                 "expected tensors named \"0\" to \"0\" as tg::save writes a list, got \"weight\""));
  std::remove(one.c_str());
  std::remove(list.c_str());
}

TEST_CASE("serialize: bad arguments to the writer are clear errors") {
  Tensor t = tg::zeros({2});
  CHECK(contains(thrown<tg::ValueError>([&] {
                   ser::save_to_bytes({{"x", t}, {"x", t}});
                 }),
                 "[save_tensors] expected unique tensor names, got \"x\" twice"));
  CHECK(contains(thrown<tg::ValueError>([&] { ser::save_to_bytes({{"", t}}); }), "expected non-empty tensor names"));
  CHECK(contains(thrown<tg::ValueError>([&] {
                   ser::save_to_bytes({{"__metadata__", t}});
                 }),
                 "expected tensor names other than \"__metadata__\""));
  CHECK(contains(thrown<tg::ValueError>([&] { ser::save_to_bytes({{"bad\xFF", t}}); }), "invalid UTF-8"));
  CHECK(contains(thrown<tg::ValueError>([&] {
                   ser::save_to_bytes({{"u", Tensor()}});
                 }),
                 "expected defined tensors, got an undefined one named \"u\""));
  CHECK(contains(thrown<tg::Error>([&] {
                   ser::save_tensors({{"x", t}}, "/nonexistent-dir/x.safetensors");
                 }),
                 "/nonexistent-dir/x.safetensors: expected a writable file"));
  CHECK(contains(thrown<tg::Error>([&] { ser::load_tensors("/nonexistent-dir/x.safetensors"); }),
                 "[load_tensors] /nonexistent-dir/x.safetensors: expected a readable file"));
}
