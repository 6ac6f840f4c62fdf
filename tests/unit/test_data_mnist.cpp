// The idx reader and the MNIST dataset on small idx files the tests write themselves (with
// bytes spelled out here, independently of write_idx), and malformed files: each a
// tg::ValueError naming the file and what was expected.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;
namespace data = tg::data;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("tg_test_mnist_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string be32(uint32_t n) {
  return {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8), static_cast<char>(n)};
}

// 3 images of 2x2 (pixel k of image i is 10 * i + k) and their labels 7, 0, 9.
void write_small_mnist(const TempDir& dir, const std::string& prefix) {
  std::string images = std::string("\0\0\x08\x03", 4) + be32(3) + be32(2) + be32(2);
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 4; ++k) images += static_cast<char>(10 * i + k);
  }
  write_bytes(dir.file(prefix + "-images-idx3-ubyte"), images);
  write_bytes(dir.file(prefix + "-labels-idx1-ubyte"),
              std::string("\0\0\x08\x01", 4) + be32(3) + std::string("\x07\x00\x09", 3));
}

}  // namespace

TEST_CASE("data_mnist: MNIST reads the train and test files of a root folder") {
  TempDir dir;
  write_small_mnist(dir, "train");
  write_small_mnist(dir, "t10k");
  data::datasets::MNIST train(dir.path.string());
  CHECK(train.is_train());
  CHECK(train.size() == 3u);
  CHECK(shape(train.images()) == Ints{3, 1, 2, 2});
  CHECK(train.images().scalar_type() == tg::kFloat);
  CHECK(train.targets().scalar_type() == tg::kLong);
  CHECK(values(train.targets()) == Values{7, 0, 9});
  auto example = train.get(1);
  const Values pixels = values(example.data);
  REQUIRE(pixels.size() == 4);
  for (int k = 0; k < 4; ++k) CHECK(pixels[static_cast<size_t>(k)] == doctest::Approx((10 + k) / 255.0));
  CHECK(values(example.target) == Values{0});
  data::datasets::MNIST test(dir.path.string() + "/", data::datasets::MNIST::Mode::kTest);
  CHECK_FALSE(test.is_train());
  CHECK(contains(thrown<tg::IndexError>([&] { train.get(3); }), "[MNIST] expected an index below 3, got 3"));

  // Through a loader, normalized and stacked, as a LibTorch MNIST program reads it.
  auto loader = data::make_data_loader(data::datasets::MNIST(dir.path.string())
                                           .map(data::transforms::Normalize<>(0.1307, 0.3081))
                                           .map(data::transforms::Stack<>()),
                                       data::DataLoaderOptions().batch_size(2).shuffle(false));
  std::vector<int64_t> sizes;
  for (auto& batch : *loader) sizes.push_back(batch.data.size(0));
  CHECK(sizes == std::vector<int64_t>{2, 1});

  // pytorch/examples' mnist.cpp data pipeline, with only the namespace changed.
  namespace torch = tg;
  auto train_dataset = torch::data::datasets::MNIST(dir.path.string())
                           .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
                           .map(torch::data::transforms::Stack<>());
  const size_t train_dataset_size = train_dataset.size().value();
  auto train_loader =
      torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(std::move(train_dataset), 64);
  size_t seen = 0;
  for (auto& batch : *train_loader) {
    auto data = batch.data.to(torch::kCPU), targets = batch.target.to(torch::kCPU);
    CHECK(data.size(0) == targets.size(0));
    CHECK(values(targets) == Values{7, 0, 9});  // sequential order
    seen += static_cast<size_t>(data.size(0));
  }
  CHECK(seen == train_dataset_size);
}

TEST_CASE("data_mnist: read_idx of every idx element type, and write_idx round trips") {
  TempDir dir;
  // int16 [2] big-endian: 0x0102 = 258, 0xFFFE = -2.
  write_bytes(dir.file("i16"), std::string("\0\0\x0B\x01", 4) + be32(2) + std::string("\x01\x02\xFF\xFE", 4));
  CHECK(values(data::read_idx(dir.file("i16"))) == Values{258, -2});
  // float32 [1]: 0x3FC00000 = 1.5.
  write_bytes(dir.file("f32"), std::string("\0\0\x0D\x01", 4) + be32(1) + std::string("\x3F\xC0\x00\x00", 4));
  CHECK(values(data::read_idx(dir.file("f32"))) == Values{1.5});
  for (tg::ScalarType dtype : {tg::kByte, tg::kChar, tg::kShort, tg::kInt, tg::kFloat, tg::kDouble}) {
    CAPTURE(dtype);
    Tensor t = make({1, -2, 3, 4, 5, 6}, {3, 1, 2}, dtype);
    data::write_idx(t, dir.file("round"));
    Tensor back = data::read_idx(dir.file("round"));
    CHECK(back.scalar_type() == dtype);
    CHECK(shape(back) == Ints{3, 1, 2});
    CHECK(values(back) == values(t));
  }
}

TEST_CASE("data_mnist: malformed idx files name the file, the place and what was expected") {
  TempDir dir;
  const std::string path = dir.file("bad");
  auto error = [&](const std::string& bytes) {
    write_bytes(path, bytes);
    return thrown<tg::ValueError>([&] { data::read_idx(path); });
  };
  CHECK(contains(error(std::string("\0\0", 2)),
                 "[read_idx] " + path + ": expected the 4-byte idx magic number, got a file of 2 bytes"));
  CHECK(contains(error(std::string("\x1F\x8B\x08\x00", 4)),
                 path + ": byte 0: expected an idx magic number starting with two zero bytes, got 0x1F 0x8B"));
  CHECK(contains(error(std::string("\0\0\x07\x01", 4) + be32(1) + "x"),
                 path + ": byte 2: expected an idx type code (0x08, 0x09, 0x0B, 0x0C, 0x0D or 0x0E), got 0x07"));
  CHECK(contains(error(std::string("\0\0\x08\x00", 4)), "byte 3: expected at least one dimension, got 0"));
  CHECK(contains(error(std::string("\0\0\x08\x03", 4) + be32(2)), "expected 3 dimension sizes in bytes 4 to 16"));
  CHECK(contains(
      error(std::string("\0\0\x08\x02", 4) + be32(2) + be32(3) + "abcde"),
      "expected 12 header bytes and 6 data bytes for sizes [2, 3] of uint8, got a file of 17 bytes (truncated?)"));
  CHECK(contains(error(std::string("\0\0\x0C\x01", 4) + be32(1) + "abcdXY"), "(trailing bytes)"));
  // Sizes whose product overflows 64 bits are caught before any allocation.
  CHECK(contains(error(std::string("\0\0\x0E\x03", 4) + be32(0xFFFFFFFF) + be32(0xFFFFFFFF) + be32(0xFFFFFFFF)),
                 "more than the file's data bytes"));
  CHECK(contains(thrown<tg::ValueError>([&] { data::read_idx(dir.file("missing")); }),
                 "expected a readable idx file, could not open it"));

  // MNIST's own checks: image and label counts, and the files' kinds.
  write_small_mnist(dir, "train");
  write_bytes(dir.file("train-labels-idx1-ubyte"), std::string("\0\0\x08\x01", 4) + be32(2) + "\x01\x02");
  CHECK(contains(thrown<tg::ValueError>([&] { data::datasets::MNIST m(dir.path.string()); }),
                 "expected as many labels as images, got 2 labels in"));
  write_bytes(dir.file("train-labels-idx1-ubyte"), std::string("\0\0\x0C\x01", 4) + be32(1) + "abcd");
  CHECK(contains(thrown<tg::ValueError>([&] { data::datasets::MNIST m(dir.path.string()); }),
                 "train-labels-idx1-ubyte: expected uint8 labels of 1 dimension [N], got int32 of sizes [1]"));
  CHECK(contains(
      thrown<tg::ValueError>([&] { data::datasets::MNIST m(dir.path.string(), data::datasets::MNIST::Mode::kTest); }),
      "t10k-images-idx3-ubyte: expected a readable idx file"));
}
