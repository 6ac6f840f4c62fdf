// Samplers, as LibTorch's torch::data::samplers: each epoch (after reset()) a sampler hands
// out the dataset's indices in batches through next(batch_size) until it returns nullopt.
// Sequential gives 0..n-1; Random a permutation drawn from tg::default_generator() (so
// tg::manual_seed makes it repeatable); the Distributed ones give replica `rank` of
// `num_replicas` its share of an epoch, the same permutation on every replica for one epoch
// (see Note [Distributed sampling]). Threading: a sampler is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace tg::data::samplers {

template <typename BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;
  virtual ~Sampler() = default;
  // Starts a new epoch, over new_size examples when given.
  virtual void reset(std::optional<size_t> new_size) = 0;
  // The next batch of at most batch_size indices, or nullopt at the end of the epoch.
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
};

// Shared by the samplers below: hands out indices_ from index_ on.
class IndexListSampler : public Sampler<> {
 public:
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  // How many indices were handed out this epoch.
  size_t index() const noexcept { return index_; }

 protected:
  std::vector<size_t> indices_;
  size_t index_ = 0;
};

class SequentialSampler : public IndexListSampler {
 public:
  explicit SequentialSampler(size_t size);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
};

class RandomSampler : public IndexListSampler {
 public:
  explicit RandomSampler(int64_t size);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
};

class DistributedSampler : public IndexListSampler {
 public:
  // allow_duplicates pads the epoch (repeating its first indices) so that every replica gets
  // ceil(size / num_replicas) indices; without it each gets floor(size / num_replicas).
  DistributedSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true);
  void set_epoch(size_t epoch) noexcept { epoch_ = epoch; }
  size_t epoch() const noexcept { return epoch_; }
  // The number of indices this replica gets per epoch.
  size_t local_sample_count() const;

 protected:
  // Fills indices_ with this replica's share of `order` (the epoch's order of all indices).
  void take_share(const std::vector<size_t>& order);

  size_t size_, num_replicas_, rank_, epoch_ = 0;
  bool allow_duplicates_;
};

class DistributedRandomSampler : public DistributedSampler {
 public:
  DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
};

class DistributedSequentialSampler : public DistributedSampler {
 public:
  DistributedSequentialSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
};

// The sampler make_data_loader uses when none is named: Random (LibTorch's default) unless
// DataLoaderOptions::shuffle(false) asks for Sequential.
class DefaultSampler : public IndexListSampler {
 public:
  DefaultSampler(size_t size, bool shuffle);
  void reset(std::optional<size_t> new_size = std::nullopt) override;

 private:
  bool shuffle_;
};

}  // namespace tg::data::samplers
