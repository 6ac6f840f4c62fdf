// Corrupt, truncated and hostile safetensors input: each is a tg::Error naming the source and
// what was expected, never a crash or an out-of-bounds read (run under ASan to see the latter).
// See Note [Reading untrusted safetensors].
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;
namespace ser = tg::serialize;

namespace {

// A file of the given header text (unpadded) and data bytes.
std::string file_bytes(const std::string& header, const std::string& data, uint64_t declared_length) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((declared_length >> (8 * i)) & 0xFF);
  return out + header + data;
}
std::string file_bytes(const std::string& header, const std::string& data = std::string(8, '\0')) {
  return file_bytes(header, data, header.size());
}

std::string error_of(const std::string& bytes) {
  return thrown<tg::ValueError>([&] { ser::load_from_bytes(bytes, "hostile.safetensors"); });
}

}  // namespace

TEST_CASE("serialize_hostile: a file too short or a header length beyond the file") {
  CHECK(contains(
      error_of("abc"),
      "[load_tensors] hostile.safetensors: expected at least the 8-byte header length, got a file of 3 bytes"));
  const std::string header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  CHECK(contains(error_of(file_bytes(header, std::string(8, '\0'), header.size() + 100)),
                 "expected a header length within the file's"));
  CHECK(contains(error_of(file_bytes(header, "", uint64_t{1} << 62)), "expected a header of at most 100000000 bytes"));
  CHECK(contains(error_of(file_bytes(header, "", UINT64_MAX)), "expected a header of at most"));
}

TEST_CASE("serialize_hostile: malformed JSON, non-UTF-8 and deep nesting") {
  CHECK(contains(error_of(file_bytes("[1]")), "expected the JSON header to start with '{', got byte 91"));
  CHECK(contains(error_of(file_bytes("", "")), "expected the JSON header to start with '{', got an empty header"));
  CHECK(contains(error_of(file_bytes(R"({"a":)")), "JSON header byte 5: expected a JSON value, got the end"));
  CHECK(contains(error_of(file_bytes(R"({"a" 1})")), "JSON header byte 5: expected ':', got '1'"));
  CHECK(contains(error_of(file_bytes("{\"a\xC0\xAF\":1}")), "JSON header byte 3: expected UTF-8 text"));
  CHECK(contains(error_of(file_bytes("{\"\xED\xA0\x80\":1}")), "expected UTF-8 text"));  // a surrogate
  CHECK(contains(error_of(file_bytes(R"({"a\ud800":1})")), "expected a low surrogate"));
  CHECK(contains(error_of(file_bytes(R"({"a":{},"a":{}})")), "\"a\" repeats"));
  // A million nested arrays would overflow a naive recursive parser's stack.
  const std::string deep = "{\"a\":" + std::string(1000000, '[') + std::string(1000000, ']') + "}";
  CHECK(contains(error_of(file_bytes(deep)), "expected nesting at most 64 deep"));
}

TEST_CASE("serialize_hostile: unknown dtype, bad shapes and fields") {
  CHECK(contains(error_of(file_bytes(R"({"a":{"dtype":"U16","shape":[4],"data_offsets":[0,8]}})")),
                 "tensor \"a\": expected a dtype tensorgen has (BOOL, U8, I8, I16, I32, I64, F16, BF16, F32, F64), got "
                 "\"U16\""));
  CHECK(contains(error_of(file_bytes(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})")),
                 "tensor \"a\": expected data_offsets spanning 3 * 4 bytes for its shape and dtype, got 8 bytes"));
  CHECK(contains(error_of(file_bytes(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})")),
                 "tensor \"a\" shape: expected a non-negative integer, got -2"));
  CHECK(contains(error_of(file_bytes(R"({"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})")),
                 "expected a non-negative integer, got 2.0"));
  CHECK(
      contains(error_of(file_bytes(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,8]}})")),
               "expected data_offsets spanning numel * itemsize bytes"));
  CHECK(contains(error_of(file_bytes(R"({"a":{"dtype":"F32","shape":[99999999999999999999],"data_offsets":[0,8]}})")),
                 "expected an integer below 2^64"));
  CHECK(contains(error_of(file_bytes(R"({"a":{"dtype":"F32","shape":[2]}})")),
                 "expected \"data_offsets\" as [begin, end]"));
  CHECK(contains(error_of(file_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}})")),
                 "expected only dtype, shape and data_offsets, got \"x\""));
  CHECK(contains(error_of(file_bytes(R"({"a":[]})")), "expected an object {dtype, shape, data_offsets}"));
  CHECK(contains(error_of(file_bytes(R"({"__metadata__":{"k":1}})", "")),
                 "expected \"__metadata__\" values to be strings"));
}

TEST_CASE("serialize_hostile: offsets out of range, overlapping, with holes or trailing bytes") {
  CHECK(contains(error_of(file_bytes(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})")),
                 "tensor \"a\": expected data_offsets within the 8 data bytes of the file, got [0, 16]"));
  CHECK(contains(error_of(file_bytes(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[9,8]}})")),
                 "expected data_offsets within the 8 data bytes"));
  CHECK(contains(error_of(file_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                     R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})")),
                 "tensor \"b\": expected its data to begin at byte 8 after \"a\", got 4 (overlapping tensors)"));
  CHECK(contains(error_of(file_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})")),
                 "tensor \"a\": expected its data to begin at byte 0, got 4 (a hole in the data section)"));
  CHECK(contains(error_of(file_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})")),
                 "expected the tensors to cover the 8 data bytes, got 4 bytes covered"));
}

TEST_CASE("serialize_hostile: every truncation and many byte flips of a valid file load or throw tg::Error") {
  const std::string valid =
      ser::save_to_bytes({{"w", make({1, 2, 3, 4, 5, 6}, {2, 3})}, {"b", make({1, 2}, {2}, tg::kLong)}}, {{"k", "v"}});
  int errors = 0;
  for (size_t length = 0; length < valid.size(); ++length) {
    try {
      ser::load_from_bytes(valid.substr(0, length));
    } catch (const tg::Error&) {
      ++errors;
    }
  }
  CHECK(errors == static_cast<int>(valid.size()));  // every strict prefix is refused
  uint64_t state = 12345;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string bytes = valid;
    for (int flips = 0; flips < 3; ++flips) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      bytes[(state >> 33) % bytes.size()] = static_cast<char>(state >> 20);
    }
    try {
      const ser::SafetensorsFile loaded = ser::load_from_bytes(bytes);
      for (const auto& entry : loaded.tensors) CHECK(entry.second.nbytes() <= bytes.size());
    } catch (const tg::Error&) {
    }
  }
}

TEST_CASE("serialize_hostile: the file reader checks the same way (truncated file on disk)") {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("tg_test_hostile_" + std::to_string(::getpid()) + ".safetensors"))
          .string();
  const std::string valid = ser::save_to_bytes({{"w", make({1, 2, 3, 4}, {4})}});
  {
    std::ofstream out(path, std::ios::binary);
    out << valid.substr(0, valid.size() - 3);
  }
  CHECK(contains(thrown<tg::ValueError>([&] { ser::load_tensors(path); }),
                 "[load_tensors] " + path + ": tensor \"w\": expected data_offsets within the 13 data bytes"));
  std::remove(path.c_str());
}
