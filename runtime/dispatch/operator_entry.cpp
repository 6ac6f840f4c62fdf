#include "dispatch/operator_entry.h"

#include <sstream>

#include "core/error.h"

namespace tg {

OperatorEntry::OperatorEntry(OperatorName name)
    : name_(std::move(name)), dispatch_mask_(DispatchKeySet::full().raw()) {
  for (auto& slot : table_) slot.store(&KernelFunction::missing(), std::memory_order_relaxed);
}

const FunctionSchema& OperatorEntry::schema() const {
  TG_CHECK(schema_.has_value(), "[dispatcher] operator ", name_.str(),
           " has kernels but no schema: register one with Library::def");
  return *schema_;
}

void OperatorEntry::set_schema(FunctionSchema schema, std::string debug) {
  TG_CHECK(!schema_.has_value(), "[dispatcher] operator ", name_.str(), " is already defined (", schema_debug_,
           "); the second definition is at ", debug);
  schema_ = std::move(schema);
  schema_debug_ = std::move(debug);
}

void OperatorEntry::clear_schema() {
  schema_.reset();
  if (kernels_.empty()) cpp_signature_ = nullptr;  // nothing left to agree with
}

void OperatorEntry::check_or_set_cpp_signature(const std::type_info& signature, const std::string& debug) {
  if (cpp_signature_ == nullptr) {
    cpp_signature_ = &signature;
    cpp_signature_debug_ = debug;
    return;
  }
  TG_CHECK_TYPE(*cpp_signature_ == signature, "[dispatcher] ", name_.str(), ": ", debug, " uses C++ signature ",
                signature.name(), ", but ", cpp_signature_debug_, " uses ", cpp_signature_->name(),
                "; every kernel and typed call of one operator must share its signature");
}

uint64_t OperatorEntry::add_kernel(DispatchKey key, KernelFunction kernel, std::string debug) {
  if (const std::type_info* signature = kernel.cpp_signature()) {
    check_or_set_cpp_signature(*signature, "the kernel for " + std::string(to_string(key)) + " at " + debug);
  }
  kernel_storage_.push_back(std::move(kernel));
  uint64_t id = next_id_++;
  kernels_[key].push_front(RegisteredKernel{id, &kernel_storage_.back(), std::move(debug)});
  return id;
}

void OperatorEntry::remove_kernel(DispatchKey key, uint64_t id) {
  auto it = kernels_.find(key);
  TG_INTERNAL_ASSERT(it != kernels_.end(), "no kernels on ", key, " for ", name_.str());
  it->second.remove_if([&](const RegisteredKernel& k) { return k.id == id; });
  if (it->second.empty()) kernels_.erase(it);
  if (kernels_.empty() && !schema_) {
    cpp_signature_ = nullptr;  // nothing left to agree with
  }
}

bool OperatorEntry::has_kernel_for(DispatchKey key) const { return kernels_.count(key) != 0; }

std::vector<DispatchKey> OperatorEntry::registered_keys() const {
  std::vector<DispatchKey> keys;
  for (const auto& [key, list] : kernels_) keys.push_back(key);
  return keys;
}

const KernelFunction* OperatorEntry::newest(DispatchKey key) const {
  auto it = kernels_.find(key);
  return it == kernels_.end() ? nullptr : it->second.front().kernel;
}

// See Note [Dispatch table resolution] in docs/architecture.md: a kernel registered on the
// key itself wins; then CompositeExplicitAutograd on backends; then CompositeImplicitAutograd
// on backends, and on Autograd only when no backend-specific kernel exists (a backend kernel
// means the composite's decomposition is not what runs, so autograd cannot flow through it);
// then the dispatcher's fallback for the key.
const KernelFunction* OperatorEntry::resolve(DispatchKey key, const FallbackTable& fallbacks) const {
  if (const KernelFunction* direct = newest(key)) return direct;
  if (is_backend_key(key)) {
    if (const KernelFunction* k = newest(DispatchKey::CompositeExplicitAutograd)) return k;
    if (const KernelFunction* k = newest(DispatchKey::CompositeImplicitAutograd)) return k;
  }
  if (key == DispatchKey::Autograd) {
    bool has_backend_specific = has_kernel_for(DispatchKey::CompositeExplicitAutograd);
    kBackendKeys.for_each([&](DispatchKey backend) { has_backend_specific |= has_kernel_for(backend); });
    if (!has_backend_specific) {
      if (const KernelFunction* k = newest(DispatchKey::CompositeImplicitAutograd)) return k;
    }
  }
  // vmap sees through decompositions: a composite's parts have batching rules.
  if (key == DispatchKey::FuncTorchBatched) {
    if (const KernelFunction* k = newest(DispatchKey::CompositeImplicitAutograd)) return k;
  }
  return fallbacks[static_cast<int>(key)];
}

void OperatorEntry::update_table(const FallbackTable& fallbacks) {
  DispatchKeySet mask = DispatchKeySet::full();
  for (int i = 1; i < kNumRuntimeKeys; ++i) {
    auto key = static_cast<DispatchKey>(i);
    const KernelFunction* kernel = resolve(key, fallbacks);
    if (kernel == nullptr) kernel = &KernelFunction::missing();
    if (kernel->is_fallthrough()) mask = mask.remove(key);
    table_[i].store(kernel, std::memory_order_release);
  }
  dispatch_mask_.store(mask.raw(), std::memory_order_relaxed);
}

std::string OperatorEntry::dump_state() const {
  std::ostringstream out;
  out << "operator " << name_.str() << "\n";
  out << "schema: " << (schema_ ? schema_->str() : std::string("(none)")) << "\n";
  for (const auto& [key, list] : kernels_) {
    out << key << ": " << list.front().debug << (list.size() > 1 ? " (shadows earlier registrations)" : "") << "\n";
  }
  return out.str();
}

}  // namespace tg
