#include "data/samplers.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "core/error.h"
#include "core/generator.h"

// Note [Distributed sampling]
// Every replica must see a disjoint share of the same epoch order, so the order may depend
// only on (epoch, size): DistributedRandomSampler shuffles with a generator seeded by the
// epoch (set_epoch before each epoch gives a new order), not with the process's default
// generator, which replicas need not share. Replica r takes positions r, r + R, r + 2R, ...
// of the (padded or cut) order, as torch.utils.data.DistributedSampler does.

namespace tg::data::samplers {

namespace {

// A uniform permutation of 0..n-1 (Fisher-Yates) drawn from `next_u64`.
template <typename Next>
std::vector<size_t> permutation(size_t n, Next&& next_u64) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  for (size_t i = n; i > 1; --i) {
    // Rejection keeps the draw uniform for every i.
    const uint64_t bound = static_cast<uint64_t>(i);
    const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t r;
    do {
      r = next_u64();
    } while (r >= limit);
    std::swap(order[i - 1], order[static_cast<size_t>(r % bound)]);
  }
  return order;
}

std::vector<size_t> default_generator_permutation(size_t n) {
  Generator& generator = default_generator();
  auto lock = generator.lock();
  auto engine = generator.engine();
  return permutation(n, [&] { return engine.next_u64(); });
}

std::vector<size_t> sequence(size_t n) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  return order;
}

}  // namespace

std::optional<std::vector<size_t>> IndexListSampler::next(size_t batch_size) {
  TG_CHECK_VALUE(batch_size > 0, "[Sampler::next] expected a positive batch size, got 0");
  if (index_ >= indices_.size()) return std::nullopt;
  const size_t end = std::min(indices_.size(), index_ + batch_size);
  std::vector<size_t> batch(indices_.begin() + static_cast<std::ptrdiff_t>(index_),
                            indices_.begin() + static_cast<std::ptrdiff_t>(end));
  index_ = end;
  return batch;
}

SequentialSampler::SequentialSampler(size_t size) { indices_ = sequence(size); }

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) indices_ = sequence(*new_size);
  index_ = 0;
}

RandomSampler::RandomSampler(int64_t size) {
  TG_CHECK_VALUE(size >= 0, "[RandomSampler] expected a non-negative size, got ", size);
  indices_ = default_generator_permutation(static_cast<size_t>(size));
}

void RandomSampler::reset(std::optional<size_t> new_size) {
  indices_ = default_generator_permutation(new_size.value_or(indices_.size()));
  index_ = 0;
}

DistributedSampler::DistributedSampler(size_t size, size_t num_replicas, size_t rank, bool allow_duplicates)
    : size_(size), num_replicas_(num_replicas), rank_(rank), allow_duplicates_(allow_duplicates) {
  TG_CHECK_VALUE(num_replicas > 0, "[DistributedSampler] expected at least one replica, got num_replicas=0");
  TG_CHECK_VALUE(rank < num_replicas, "[DistributedSampler] expected a rank in [0, ", num_replicas, "), got ", rank);
}

size_t DistributedSampler::local_sample_count() const {
  return allow_duplicates_ ? (size_ + num_replicas_ - 1) / num_replicas_ : size_ / num_replicas_;
}

void DistributedSampler::take_share(const std::vector<size_t>& order) {
  const size_t total = local_sample_count() * num_replicas_;
  indices_.clear();
  for (size_t position = rank_; position < total; position += num_replicas_) {
    indices_.push_back(order.empty() ? 0 : order[position % order.size()]);
  }
  if (order.empty()) indices_.clear();
  index_ = 0;
}

DistributedRandomSampler::DistributedRandomSampler(size_t size, size_t num_replicas, size_t rank, bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  reset();
}

void DistributedRandomSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  std::mt19937_64 engine(0x5EEDull + epoch_);
  take_share(permutation(size_, [&] { return engine(); }));
}

DistributedSequentialSampler::DistributedSequentialSampler(size_t size, size_t num_replicas, size_t rank,
                                                           bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  reset();
}

void DistributedSequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  take_share(sequence(size_));
}

DefaultSampler::DefaultSampler(size_t size, bool shuffle) : shuffle_(shuffle) {
  indices_ = shuffle ? default_generator_permutation(size) : sequence(size);
}

void DefaultSampler::reset(std::optional<size_t> new_size) {
  const size_t n = new_size.value_or(indices_.size());
  indices_ = shuffle_ ? default_generator_permutation(n) : sequence(n);
  index_ = 0;
}

}  // namespace tg::data::samplers
