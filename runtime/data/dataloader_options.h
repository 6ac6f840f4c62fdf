// The options of a data loader, in LibTorch's names (torch::data::DataLoaderOptions), plus
// shuffle, which picks the sampler make_data_loader makes when none is named.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>

#include "core/arg.h"

namespace tg::data {

struct DataLoaderOptions {
  DataLoaderOptions() = default;
  DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}  // NOLINT: LibTorch's implicit form

  // Examples per batch.
  TG_ARG(size_t, batch_size) = 1;
  // Threads that load batches ahead of the consumer; 0 loads on the calling thread.
  TG_ARG(size_t, workers) = 0;
  // Batches in flight at once with workers (default 2 * workers).
  TG_ARG(std::optional<size_t>, max_jobs);
  // How long the consumer waits for a worker's batch before failing.
  TG_ARG(std::optional<std::chrono::milliseconds>, timeout);
  // With workers, hand batches out in sampler order (true) or as they finish (false).
  TG_ARG(bool, enforce_ordering) = true;
  // Drop the last batch of an epoch when it is smaller than batch_size.
  TG_ARG(bool, drop_last) = false;
  // Random order (true, LibTorch's default) or sequential; only for the sampler
  // make_data_loader makes itself.
  TG_ARG(std::optional<bool>, shuffle);
};

}  // namespace tg::data
