// The thread-local launch recorder (cpu/launch.h).
#include "cpu/launch.h"

namespace tg::cpu {

namespace detail {

std::atomic<int> installed_launch_recorders{0};

namespace {
thread_local LaunchRecorder* this_thread_recorder = nullptr;
}  // namespace

LaunchRecorder* this_thread_launch_recorder() { return this_thread_recorder; }

}  // namespace detail

LaunchRecorderScope::LaunchRecorderScope(LaunchRecorder* recorder) : previous_(detail::this_thread_recorder) {
  detail::this_thread_recorder = recorder;
  detail::installed_launch_recorders.fetch_add(1, std::memory_order_relaxed);
}

LaunchRecorderScope::~LaunchRecorderScope() {
  detail::installed_launch_recorders.fetch_sub(1, std::memory_order_relaxed);
  detail::this_thread_recorder = previous_;
}

}  // namespace tg::cpu
