#include "core/data_read_hook.h"

#include <utility>

namespace tg {
namespace {
thread_local DataReadHook tls_data_read_hook = nullptr;
thread_local TensorReadHook tls_tensor_read_hook = nullptr;
}  // namespace

DataReadHook set_data_read_hook(DataReadHook hook) noexcept { return std::exchange(tls_data_read_hook, hook); }

void notify_data_read(std::string_view what) {
  if (tls_data_read_hook != nullptr) tls_data_read_hook(what);
}

TensorReadHook set_tensor_read_hook(TensorReadHook hook) noexcept { return std::exchange(tls_tensor_read_hook, hook); }

void notify_data_read(std::string_view what, const TensorBase& tensor) {
  if (tls_data_read_hook != nullptr) tls_data_read_hook(what);
  if (tls_tensor_read_hook != nullptr) tls_tensor_read_hook(tensor, what);
}

}  // namespace tg
