// StatelessDataLoader: batches of a dataset in the order a sampler gives, on the calling
// thread or on `workers` threads that each own a copy of the dataset (LibTorch's
// torch::data::make_data_loader). Each begin() starts a new epoch (the sampler is reset).
// See Note [Data loader workers]. Threading: one thread iterates a loader at a time; the
// worker state below is guarded by mutex_.
#pragma once

#include <condition_variable>
#include <exception>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "data/dataloader_options.h"
#include "data/samplers.h"

// Note [Data loader workers]
// With workers, request k (the k-th batch of indices the sampler gives, taken under mutex_
// because samplers are not thread-safe) is loaded by whichever worker took it, outside the
// lock, on that worker's own copy of the dataset (datasets and their transforms need not be
// thread-safe). Results wait in `results_` keyed by k; the consumer takes k = 0, 1, 2, ... in
// order (or any finished one without enforce_ordering). At most max_jobs requests are in
// flight, so workers never run far ahead. An exception in a worker is stored with its k and
// rethrown to the consumer when k comes up. A new epoch (begin()) or the destructor stops and
// joins the workers first.

namespace tg::data {

template <typename Dataset, typename Sampler>
class StatelessDataLoader {
 public:
  using BatchType = typename Dataset::BatchType;
  using BatchRequestType = typename Sampler::BatchRequestType;

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = BatchType;
    using difference_type = std::ptrdiff_t;
    using pointer = BatchType*;
    using reference = BatchType&;

    BatchType& operator*() { return *loader_->current_; }
    BatchType* operator->() { return &*loader_->current_; }
    Iterator& operator++() {
      loader_->advance();
      return *this;
    }
    bool operator==(const Iterator& other) const { return at_end() == other.at_end(); }
    bool operator!=(const Iterator& other) const { return !(*this == other); }

   private:
    friend class StatelessDataLoader;
    explicit Iterator(StatelessDataLoader* loader) : loader_(loader) {}
    bool at_end() const { return loader_ == nullptr || !loader_->current_.has_value(); }
    StatelessDataLoader* loader_;
  };

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : dataset_(std::move(dataset)), sampler_(std::move(sampler)), options_(std::move(options)) {
    TG_CHECK_VALUE(options_.batch_size() > 0, "[DataLoader] expected a positive batch_size, got 0");
    TG_CHECK_VALUE(!options_.max_jobs() || *options_.max_jobs() > 0,
                   "[DataLoader] expected a positive max_jobs, got 0");
  }
  StatelessDataLoader(const StatelessDataLoader&) = delete;
  StatelessDataLoader& operator=(const StatelessDataLoader&) = delete;
  ~StatelessDataLoader() { join(); }

  // Starts an epoch and returns an iterator at its first batch.
  Iterator begin() {
    join();
    sampler_.reset(std::nullopt);
    if (options_.workers() > 0) start_workers();
    advance();
    return Iterator(this);
  }
  Iterator end() { return Iterator(nullptr); }

  const DataLoaderOptions& options() const noexcept { return options_; }
  // Stops the workers of the current epoch (begin() and the destructor do it too).
  void join() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    for (auto& worker : workers_) worker.join();
    workers_.clear();
    results_.clear();
    stop_ = exhausted_ = false;
    next_request_ = next_result_ = end_request_ = 0;
    current_.reset();
  }

 private:
  struct Result {
    std::optional<BatchType> batch;
    std::exception_ptr error;
  };

  // The next request of the epoch, or nullopt at its end (a short last batch counts as the
  // end with drop_last). Precondition: the caller may use sampler_ (mutex_ held with workers).
  std::optional<BatchRequestType> next_request() {
    auto request = sampler_.next(options_.batch_size());
    if (request && options_.drop_last() && request->size() < options_.batch_size()) return std::nullopt;
    return request;
  }

  void advance() {
    current_.reset();
    if (workers_.empty()) {
      if (auto request = next_request()) current_ = dataset_.get_batch(std::move(*request));
      return;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    auto ready = [&] {
      return (exhausted_ && next_result_ == end_request_) ||
             (options_.enforce_ordering() ? results_.count(next_result_) > 0 : !results_.empty());
    };
    if (options_.timeout()) {
      TG_CHECK(changed_.wait_for(lock, *options_.timeout(), ready), "[DataLoader] expected a batch within ",
               options_.timeout()->count(), " ms, got none (timeout)");
    } else {
      changed_.wait(lock, ready);
    }
    if (results_.empty()) return;  // the end of the epoch
    auto it = options_.enforce_ordering() ? results_.find(next_result_) : results_.begin();
    Result result = std::move(it->second);
    results_.erase(it);
    ++next_result_;
    lock.unlock();
    changed_.notify_all();
    if (result.error) std::rethrow_exception(result.error);
    current_ = std::move(result.batch);
  }

  void start_workers() {
    const size_t max_jobs = options_.max_jobs().value_or(2 * options_.workers());
    for (size_t w = 0; w < options_.workers(); ++w) {
      workers_.emplace_back([this, max_jobs, dataset = dataset_]() mutable { work(dataset, max_jobs); });
    }
  }

  void work(Dataset& dataset, size_t max_jobs) {
    while (true) {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stop_ || exhausted_ || next_request_ - next_result_ < max_jobs; });
      if (stop_ || exhausted_) return;
      std::optional<BatchRequestType> request;
      Result result;
      try {
        request = next_request();
      } catch (...) {
        result.error = std::current_exception();
      }
      const size_t k = next_request_++;
      if (!request && !result.error) {
        exhausted_ = true;
        end_request_ = k;
        lock.unlock();
        changed_.notify_all();
        return;
      }
      lock.unlock();
      if (request) {
        try {
          result.batch = dataset.get_batch(std::move(*request));
        } catch (...) {
          result.error = std::current_exception();
        }
      }
      lock.lock();
      results_.emplace(k, std::move(result));
      lock.unlock();
      changed_.notify_all();
    }
  }

  Dataset dataset_;
  Sampler sampler_;
  DataLoaderOptions options_;
  std::optional<BatchType> current_;  // the batch the iterator points at

  std::mutex mutex_;  // guards everything below, and sampler_ while workers run
  std::condition_variable changed_;
  std::vector<std::thread> workers_;
  std::map<size_t, Result> results_;
  size_t next_request_ = 0, next_result_ = 0, end_request_ = 0;
  bool stop_ = false, exhausted_ = false;
};

// A loader over `dataset` with `sampler`.
template <typename Dataset, typename Sampler,
          typename = std::enable_if_t<!std::is_same_v<std::decay_t<Sampler>, DataLoaderOptions>>>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, Sampler sampler,
                                                                        DataLoaderOptions options = {}) {
  TG_CHECK_VALUE(!options.shuffle().has_value(), "[make_data_loader] expected shuffle only without a sampler (it ",
                 "picks the sampler make_data_loader makes), got it together with a sampler");
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler),
                                                                 std::move(options));
}

// A loader over `dataset` with a Sampler made for its size: by default samplers::DefaultSampler
// (random order unless options.shuffle(false)), as LibTorch's default RandomSampler.
template <typename Sampler = samplers::DefaultSampler, typename Dataset>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset,
                                                                        DataLoaderOptions options = {}) {
  const std::optional<size_t> size = dataset.size();
  TG_CHECK_VALUE(size.has_value(), "[make_data_loader] expected a dataset of known size to make a sampler for, got ",
                 "one whose size() is nullopt");
  if constexpr (std::is_same_v<Sampler, samplers::DefaultSampler>) {
    Sampler sampler(*size, options.shuffle().value_or(true));
    return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler),
                                                                   std::move(options));
  } else {
    TG_CHECK_VALUE(!options.shuffle().has_value(), "[make_data_loader] expected shuffle only with the default ",
                   "sampler, got it together with a named sampler type");
    return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), Sampler(*size),
                                                                   std::move(options));
  }
}

}  // namespace tg::data
