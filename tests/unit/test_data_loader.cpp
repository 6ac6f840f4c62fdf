// Datasets, transforms, samplers and the data loader: batch sizes, drop_last, shuffling that
// tg::manual_seed repeats, worker threads that give the same batches in order, errors
// raised inside workers, and the distributed samplers' disjoint shares.
#include <algorithm>
#include <atomic>
#include <numeric>
#include <set>
#include <thread>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;
namespace data = tg::data;

namespace {

// 10 examples: data row i is [i, 10 + i], target i is i.
data::datasets::TensorPairDataset ten_examples() {
  Values x, y;
  for (int i = 0; i < 10; ++i) {
    x.push_back(i);
    x.push_back(10 + i);
    y.push_back(i);
  }
  return data::datasets::TensorPairDataset(make(x, {10, 2}), make(y, {10}, tg::kLong));
}

// Batches of values as text, e.g. "{0, 1} {2}", for comparisons that print well.
std::string text(const std::vector<Values>& batches) {
  std::string out;
  for (const Values& batch : batches) {
    out += out.empty() ? "{" : " {";
    for (size_t i = 0; i < batch.size(); ++i) out += (i ? ", " : "") + std::to_string(static_cast<int64_t>(batch[i]));
    out += "}";
  }
  return out;
}

template <typename Loader>
std::string targets_of(Loader& loader) {
  std::vector<Values> batches;
  for (auto& batch : loader) batches.push_back(values(batch.target));
  return text(batches);
}

// A dataset whose get() records the threads that call it and fails at index 7.
struct Recording : data::datasets::Dataset<Recording> {
  std::shared_ptr<std::set<std::thread::id>> threads = std::make_shared<std::set<std::thread::id>>();
  std::shared_ptr<std::mutex> mutex = std::make_shared<std::mutex>();
  bool fail_at_7 = false;
  data::Example<> get(size_t index) override {
    {
      std::lock_guard<std::mutex> lock(*mutex);
      threads->insert(std::this_thread::get_id());
    }
    TG_CHECK_VALUE(!(fail_at_7 && index == 7), "[Recording] example 7 is broken");
    return {make({static_cast<double>(index)}, {1}), make({static_cast<double>(index)}, {}, tg::kLong)};
  }
  std::optional<size_t> size() const override { return 20; }
};

}  // namespace

TEST_CASE("data: TensorPairDataset + Stack gives stacked batches; drop_last drops the short one") {
  auto loader = data::make_data_loader(ten_examples().map(data::transforms::Stack<>()),
                                       data::DataLoaderOptions().batch_size(4).shuffle(false));
  std::vector<Values> seen_batches;
  for (auto& batch : *loader) {
    CHECK(batch.data.size(1) == 2);
    CHECK(batch.data.size(0) == batch.target.size(0));
    CHECK(values(batch.data.select(1, 1)) == values((batch.target + 10).to(tg::kDouble)));
    seen_batches.push_back(values(batch.target));
  }
  const std::string seen = text(seen_batches);
  CHECK(seen == "{0, 1, 2, 3} {4, 5, 6, 7} {8, 9}");
  // A second epoch starts over.
  CHECK(targets_of(*loader) == seen);

  auto dropping = data::make_data_loader(ten_examples().map(data::transforms::Stack<>()),
                                         data::DataLoaderOptions(4).shuffle(false).drop_last(true));
  CHECK(targets_of(*dropping) == "{0, 1, 2, 3} {4, 5, 6, 7}");
}

TEST_CASE("data: shuffling is a permutation per epoch, repeatable with tg::manual_seed") {
  auto loader = data::make_data_loader(ten_examples().map(data::transforms::Stack<>()), data::DataLoaderOptions(3));
  auto epoch = [&] {
    Values all;
    for (auto& batch : *loader) {
      const Values t = values(batch.target);
      all.insert(all.end(), t.begin(), t.end());
    }
    return all;
  };
  tg::manual_seed(7);
  const Values first = epoch(), second = epoch();
  Values sorted = first;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == Values{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(first != second);  // a new order each epoch (1 in 10! to coincide)
  tg::manual_seed(7);
  CHECK(epoch() == first);
}

TEST_CASE("data: worker threads give the same batches in sampler order, on other threads") {
  Recording dataset;
  auto threads = dataset.threads;
  auto single =
      data::make_data_loader(dataset.map(data::transforms::Stack<>()), data::DataLoaderOptions(3).shuffle(false));
  auto parallel = data::make_data_loader(dataset.map(data::transforms::Stack<>()),
                                         data::DataLoaderOptions(3).shuffle(false).workers(3).max_jobs(4));
  threads->clear();
  const auto expected = targets_of(*single);
  CHECK(threads->size() == 1);
  threads->clear();
  for (int epoch = 0; epoch < 3; ++epoch) CHECK(targets_of(*parallel) == expected);
  CHECK(threads->count(std::this_thread::get_id()) == 0);
  CHECK(threads->size() >= 1);
  // Stopping in the middle of an epoch and starting another is fine.
  for (auto& batch : *parallel) {
    (void)batch;
    break;
  }
  CHECK(targets_of(*parallel) == expected);
}

TEST_CASE("data: an error inside a worker reaches the consumer at its batch") {
  Recording dataset;
  dataset.fail_at_7 = true;
  for (size_t workers : {size_t{0}, size_t{2}}) {
    CAPTURE(workers);
    auto loader = data::make_data_loader(dataset.map(data::transforms::Stack<>()),
                                         data::DataLoaderOptions(4).shuffle(false).workers(workers));
    size_t batches = 0;
    const std::string message = thrown<tg::ValueError>([&] {
      for (auto& batch : *loader) {
        (void)batch;
        ++batches;
      }
    });
    CHECK(contains(message, "[Recording] example 7 is broken"));
    CHECK(batches == 1);  // batch 0 (indices 0-3) arrived; batch 1 (4-7) failed
  }
}

TEST_CASE("data: transforms Normalize, Lambda and TensorLambda; TensorDataset with Stack<TensorExample>") {
  Tensor images = make({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 1, 2});  // 2 examples of [C=2, 1, 2]
  auto dataset = data::datasets::TensorPairDataset(images, make({0, 1}, {2}, tg::kLong))
                     .map(data::transforms::Normalize<>({1.0, 2.0}, {2.0, 4.0}))
                     .map(data::transforms::Lambda<data::Example<>>([](data::Example<> e) {
                       e.target = e.target + 100;
                       return e;
                     }))
                     .map(data::transforms::Stack<>());
  auto batch = dataset.get_batch(std::vector<size_t>{1, 0});
  CHECK(values(batch.data) == Values{1.5, 2, 1, 1.25, -0.5, 0, 0, 0.25});
  CHECK(values(batch.target) == Values{101, 100});

  auto rows = data::datasets::TensorDataset(make({1, 2, 3, 4, 5, 6}, {3, 2}))
                  .map(data::transforms::TensorLambda<data::example::NoTarget>([](Tensor t) { return t * 2; }))
                  .map(data::transforms::Stack<data::TensorExample>());
  CHECK(values(rows.get_batch(std::vector<size_t>{2, 0}).data) == Values{10, 12, 2, 4});
  CHECK(contains(thrown<tg::ValueError>([] { data::transforms::Normalize<>({1.0}, {0.0}); }),
                 "[Normalize] expected non-zero standard deviations"));
  CHECK(contains(thrown<tg::ValueError>([] {
                   data::datasets::TensorPairDataset(tg::zeros({3, 2}), tg::zeros({2}));
                 }),
                 "expected data and target of the same length in dimension 0, got 3 and 2"));
}

TEST_CASE("data: samplers — sequential, random, and distributed shares that cover the epoch") {
  data::samplers::SequentialSampler sequential(5);
  CHECK(*sequential.next(2) == std::vector<size_t>{0, 1});
  CHECK(*sequential.next(5) == std::vector<size_t>{2, 3, 4});
  CHECK_FALSE(sequential.next(1).has_value());
  sequential.reset(3);
  CHECK(*sequential.next(10) == std::vector<size_t>{0, 1, 2});

  data::samplers::RandomSampler random(6);
  std::vector<size_t> drawn = *random.next(6);
  std::sort(drawn.begin(), drawn.end());
  CHECK(drawn == std::vector<size_t>{0, 1, 2, 3, 4, 5});

  for (bool allow_duplicates : {true, false}) {
    CAPTURE(allow_duplicates);
    std::multiset<size_t> all;
    std::vector<std::vector<size_t>> shares;
    for (size_t rank = 0; rank < 3; ++rank) {
      data::samplers::DistributedRandomSampler sampler(10, 3, rank, allow_duplicates);
      sampler.set_epoch(4);
      sampler.reset();
      auto share = *sampler.next(100);
      CHECK(share.size() == (allow_duplicates ? 4u : 3u));
      CHECK(share.size() == sampler.local_sample_count());
      all.insert(share.begin(), share.end());
      shares.push_back(share);
    }
    std::set<size_t> distinct(all.begin(), all.end());
    CHECK(distinct.size() == (allow_duplicates ? 10u : 9u));  // disjoint shares; padding repeats 2
    CHECK(all.size() == (allow_duplicates ? 12u : 9u));
    data::samplers::DistributedRandomSampler again(10, 3, 0, allow_duplicates);
    again.set_epoch(4);
    again.reset();
    CHECK(*again.next(100) == shares[0]);  // the same order on every replica for one epoch
    again.set_epoch(5);
    again.reset();
    CHECK(*again.next(100) != shares[0]);
  }
  data::samplers::DistributedSequentialSampler seq(5, 2, 1);
  CHECK(*seq.next(10) == std::vector<size_t>{1, 3, 0});
  CHECK(contains(thrown<tg::ValueError>([] { data::samplers::DistributedRandomSampler(5, 2, 2); }),
                 "[DistributedSampler] expected a rank in [0, 2), got 2"));
}

TEST_CASE("data: a loader with a named sampler; option errors") {
  auto loader =
      data::make_data_loader(ten_examples().map(data::transforms::Stack<>()),
                             data::samplers::DistributedSequentialSampler(10, 2, 0), data::DataLoaderOptions(3));
  CHECK(targets_of(*loader) == "{0, 2, 4} {6, 8}");
  auto sequential =
      data::make_data_loader<data::samplers::SequentialSampler>(ten_examples(), data::DataLoaderOptions(6));
  std::vector<size_t> sizes;
  for (auto& batch : *sequential) sizes.push_back(batch.size());  // unstacked: std::vector<Example<>>
  CHECK(sizes == std::vector<size_t>{6, 4});
  CHECK(contains(thrown<tg::ValueError>([] {
                   data::make_data_loader<data::samplers::SequentialSampler>(ten_examples(),
                                                                             data::DataLoaderOptions(2).shuffle(true));
                 }),
                 "[make_data_loader] expected shuffle only with the default sampler"));
  CHECK(contains(thrown<tg::ValueError>([] { data::make_data_loader(ten_examples(), data::DataLoaderOptions(0)); }),
                 "[DataLoader] expected a positive batch_size, got 0"));
}
