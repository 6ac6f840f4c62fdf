#include "core/data_read_hook.h"

#include <utility>

namespace tg {
namespace {
thread_local DataReadHook tls_data_read_hook = nullptr;
}  // namespace

DataReadHook set_data_read_hook(DataReadHook hook) noexcept { return std::exchange(tls_data_read_hook, hook); }

void notify_data_read(std::string_view what) {
  if (tls_data_read_hook != nullptr) tls_data_read_hook(what);
}

}  // namespace tg
