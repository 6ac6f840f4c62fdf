#include "alloc/simulated_backend.h"

#include "alloc/size_classes.h"
#include "core/error.h"

namespace tg::alloc {

namespace {

// Device d's addresses start at (d + 1) << 40, so pointers of different devices never meet.
constexpr int kAddressSpaceShift = 40;
// Segments are 512-aligned, with a gap between them so that no bug can mistake two
// segments that happen to be adjacent for one.
constexpr size_t kAlignment = kMinBlockSize;

}  // namespace

SimulatedBackend::SimulatedBackend(size_t capacity_per_device, int device_count) {
  TG_CHECK_VALUE(device_count >= 1 && device_count < 64, "[SimulatedBackend] device_count must be in [1, 64), got ",
                 device_count);
  devices_.resize(static_cast<size_t>(device_count));
  for (size_t d = 0; d < devices_.size(); ++d) {
    devices_[d].capacity = capacity_per_device;
    devices_[d].next_address = uintptr_t{d + 1} << kAddressSpaceShift;
  }
}

void* SimulatedBackend::raw_malloc(int device, size_t nbytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  DeviceState& state = devices_[checked(device, "raw_malloc")];
  TG_CHECK(nbytes > 0, "[SimulatedBackend::raw_malloc] asked for 0 bytes on device ", device);
  if (nbytes > state.capacity - state.bytes_in_use) {
    ++state.failed_mallocs;
    return nullptr;
  }
  const uintptr_t address = state.next_address;
  state.next_address += round_up(nbytes, kAlignment) + kAlignment;
  state.live.emplace(address, nbytes);
  state.bytes_in_use += nbytes;
  ++state.mallocs;
  return reinterpret_cast<void*>(address);
}

void SimulatedBackend::raw_free(int device, void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  DeviceState& state = devices_[checked(device, "raw_free")];
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  auto it = state.live.find(address);
  if (it == state.live.end()) {
    TG_ERROR("[SimulatedBackend::raw_free] ", state.freed.count(address) ? "double free of " : "unknown pointer ",
             ptr, " on device ", device);
  }
  state.bytes_in_use -= it->second;
  state.live.erase(it);
  state.freed.insert(address);
  ++state.frees;
}

DeviceMemoryInfo SimulatedBackend::memory_info(int device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const DeviceState& state = devices_[checked(device, "memory_info")];
  return {state.capacity - state.bytes_in_use, state.capacity};
}

Event SimulatedBackend::record_event(int device, StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  checked(device, "record_event");
  StreamProgress& progress = streams_[{device, stream}];
  const uint64_t id = next_event_id_++;
  events_.emplace(id, EventRecord{device, stream, ++progress.recorded});
  return Event{id};
}

bool SimulatedBackend::event_done(Event event) {
  std::lock_guard<std::mutex> lock(mutex_);
  const EventRecord& record = event_record(event, "event_done");
  return record.number <= streams_[{record.device, record.stream}].finished;
}

void SimulatedBackend::synchronize_event(Event event) {
  std::lock_guard<std::mutex> lock(mutex_);
  const EventRecord& record = event_record(event, "synchronize_event");
  StreamProgress& progress = streams_[{record.device, record.stream}];
  if (progress.finished < record.number) progress.finished = record.number;
  ++synchronizations_;
}

void SimulatedBackend::release_event(Event event) {
  std::lock_guard<std::mutex> lock(mutex_);
  event_record(event, "release_event");
  events_.erase(static_cast<uint64_t>(event));
}

void SimulatedBackend::finish_stream(int device, StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  checked(device, "finish_stream");
  StreamProgress& progress = streams_[{device, stream}];
  progress.finished = progress.recorded;
}

void SimulatedBackend::finish_all_streams() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [key, progress] : streams_) progress.finished = progress.recorded;
}

int64_t SimulatedBackend::malloc_count(int device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return devices_[checked(device, "malloc_count")].mallocs;
}

int64_t SimulatedBackend::failed_malloc_count(int device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return devices_[checked(device, "failed_malloc_count")].failed_mallocs;
}

int64_t SimulatedBackend::free_count(int device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return devices_[checked(device, "free_count")].frees;
}

size_t SimulatedBackend::bytes_in_use(int device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return devices_[checked(device, "bytes_in_use")].bytes_in_use;
}

std::map<uintptr_t, size_t> SimulatedBackend::live_allocations(int device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return devices_[checked(device, "live_allocations")].live;
}

size_t SimulatedBackend::live_event_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return events_.size();
}

int64_t SimulatedBackend::synchronize_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return synchronizations_;
}

size_t SimulatedBackend::checked(int device, const char* op) const {
  TG_CHECK_INDEX(device >= 0 && device < device_count(), "[SimulatedBackend::", op, "] no device ", device,
                 " (the backend has ", device_count(), ")");
  return static_cast<size_t>(device);
}

const SimulatedBackend::EventRecord& SimulatedBackend::event_record(Event event, const char* op) const {
  auto it = events_.find(static_cast<uint64_t>(event));
  TG_CHECK(it != events_.end(), "[SimulatedBackend::", op, "] event ", static_cast<uint64_t>(event),
           " was never recorded or was already released");
  return it->second;
}

}  // namespace tg::alloc
