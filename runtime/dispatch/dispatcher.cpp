#include "dispatch/dispatcher.h"

#include <algorithm>

#include "core/suggest.h"
#include "dispatch/schema_values.h"

namespace tg {

Dispatcher& Dispatcher::singleton() {
  // Leaked on purpose: static destructors of other libraries may still deregister kernels.
  static Dispatcher* dispatcher = new Dispatcher();
  return *dispatcher;
}

namespace {
OperatorName split_full_name(std::string_view full_name) {
  // "tg::add.Tensor": the overload follows the last '.', which comes after any "::".
  size_t ns_end = full_name.rfind("::");
  size_t dot = full_name.find('.', ns_end == std::string_view::npos ? 0 : ns_end + 2);
  if (dot == std::string_view::npos) return OperatorName{std::string(full_name), ""};
  return OperatorName{std::string(full_name.substr(0, dot)), std::string(full_name.substr(dot + 1))};
}
}  // namespace

OperatorEntry* Dispatcher::find(const std::string& full_name) {
  auto it = by_name_.find(full_name);
  return it == by_name_.end() ? nullptr : it->second;
}

OperatorEntry& Dispatcher::find_or_create(const OperatorName& name) {
  if (OperatorEntry* entry = find(name.str())) return *entry;
  OperatorEntry& entry = entries_.emplace_back(name);
  by_name_.emplace(name.str(), &entry);
  entry.update_table(fallback_table());
  return entry;
}

std::optional<OperatorHandle> Dispatcher::findSchema(std::string_view full_name) {
  return findSchema(split_full_name(full_name));
}

std::optional<OperatorHandle> Dispatcher::findSchema(const OperatorName& name) {
  std::lock_guard lock(mutex_);
  OperatorEntry* entry = find(name.str());
  if (entry == nullptr || !entry->has_schema()) return std::nullopt;
  return OperatorHandle(entry);
}

OperatorHandle Dispatcher::findSchemaOrThrow(std::string_view full_name) {
  if (auto handle = findSchema(full_name)) return *handle;
  std::vector<std::string> names = allOperatorNames();
  std::vector<std::string_view> candidates(names.begin(), names.end());
  std::string hint;
  if (auto best = closest_match(full_name, candidates, 3)) hint = "; did you mean '" + *best + "'?";
  TG_THROW(ValueError, "[dispatcher] no operator named '", full_name, "'", hint,
           " (names look like 'tg::add.Tensor': namespace, name, then overload)");
}

OperatorHandle Dispatcher::findSchemaOrThrow(std::string_view name, std::string_view overload_name) {
  return findSchemaOrThrow(OperatorName{std::string(name), std::string(overload_name)}.str());
}

std::vector<std::string> Dispatcher::allOperatorNames() {
  std::lock_guard lock(mutex_);
  std::vector<std::string> names;
  for (const OperatorEntry& entry : entries_) {
    if (entry.has_schema()) names.push_back(entry.name().str());
  }
  std::sort(names.begin(), names.end());
  return names;
}

RegistrationHandle Dispatcher::registerDef(FunctionSchema schema, std::string debug) {
  std::lock_guard lock(mutex_);
  OperatorName name{schema.name, schema.overload_name};
  OperatorEntry& entry = find_or_create(name);
  entry.set_schema(std::move(schema), std::move(debug));
  return RegistrationHandle([this, &entry] {
    std::lock_guard lock(mutex_);
    entry.clear_schema();
  });
}

RegistrationHandle Dispatcher::registerImpl(OperatorName name, DispatchKey key, KernelFunction kernel,
                                            std::string debug) {
  TG_CHECK_VALUE(is_runtime_key(key) || is_alias_key(key), "[dispatcher] cannot register a kernel for ",
                 name.str(), " on dispatch key ", key);
  std::lock_guard lock(mutex_);
  OperatorEntry& entry = find_or_create(name);
  uint64_t id = entry.add_kernel(key, std::move(kernel), std::move(debug));
  entry.update_table(fallback_table());
  return RegistrationHandle([this, &entry, key, id] {
    std::lock_guard lock(mutex_);
    entry.remove_kernel(key, id);
    entry.update_table(fallback_table());
  });
}

RegistrationHandle Dispatcher::registerFallback(DispatchKey key, KernelFunction kernel, std::string debug) {
  TG_CHECK_VALUE(is_runtime_key(key), "[dispatcher] fallbacks are registered on runtime keys, got ", key);
  std::lock_guard lock(mutex_);
  const KernelFunction* stored = &fallback_storage_.emplace_back(std::move(kernel));
  uint64_t id = next_fallback_id_++;
  fallbacks_[static_cast<int>(key)].push_back(Fallback{id, stored, std::move(debug)});
  update_all_tables();
  return RegistrationHandle([this, key, id] {
    std::lock_guard lock(mutex_);
    auto& list = fallbacks_[static_cast<int>(key)];
    std::erase_if(list, [&](const Fallback& f) { return f.id == id; });
    update_all_tables();
  });
}

FallbackTable Dispatcher::fallback_table() const {
  FallbackTable table{};
  for (int i = 0; i < kNumRuntimeKeys; ++i) {
    table[i] = fallbacks_[i].empty() ? nullptr : fallbacks_[i].back().kernel;
  }
  return table;
}

void Dispatcher::update_all_tables() {
  FallbackTable table = fallback_table();
  for (OperatorEntry& entry : entries_) entry.update_table(table);
}

void Dispatcher::check_typed_signature(OperatorEntry& entry, const std::type_info& signature) {
  std::lock_guard lock(mutex_);
  entry.check_or_set_cpp_signature(signature, "a typed call");
}

std::vector<DispatchKey> Dispatcher::registered_keys(const OperatorEntry& entry) {
  std::lock_guard lock(mutex_);
  return entry.registered_keys();
}

std::string Dispatcher::dump_state(const OperatorEntry& entry) {
  std::lock_guard lock(mutex_);
  return entry.dump_state();
}

// ---- OperatorHandle ----

const FunctionSchema& OperatorHandle::schema() const {
  // The schema of a handed-out operator never changes while the handle is used, except by
  // tests that undo their own registrations.
  return entry_->schema();
}

bool OperatorHandle::hasKernelForDispatchKey(DispatchKey key) const {
  if (is_alias_key(key)) {
    std::vector<DispatchKey> keys = registeredKeys();
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  }
  if (!is_runtime_key(key)) return false;
  // A fallthrough is no kernel: a call skips the key.
  const KernelFunction& kernel = entry_->lookup(DispatchKeySet(key));
  return &kernel != &KernelFunction::missing() && !kernel.is_fallthrough();
}

std::vector<DispatchKey> OperatorHandle::registeredKeys() const {
  return Dispatcher::singleton().registered_keys(*entry_);
}

std::string OperatorHandle::dumpState() const { return Dispatcher::singleton().dump_state(*entry_); }

namespace {

// Completes trailing defaults, checks each argument against the schema, and coerces the ones
// given in another accepted form (see coerce_ivalue).
void prepare_boxed_arguments(const OperatorHandle& op, Stack* stack) {
  const FunctionSchema& schema = op.schema();
  const size_t n = schema.arguments.size();
  if (stack->size() < n) {
    size_t given = stack->size();
    for (size_t i = given; i < n; ++i) {
      const Argument& argument = schema.arguments[i];
      TG_CHECK_VALUE(argument.default_value.has_value(), "[", op.operator_name().str(), "] expects ", n,
                     " arguments on the stack (", schema.str(), "), got ", given, "; argument '", argument.name,
                     "' has no default");
      stack->push_back(default_ivalue(argument));
    }
  }
  IValue* base = stack->data() + (stack->size() - n);
  for (size_t i = 0; i < n; ++i) {
    const Argument& argument = schema.arguments[i];
    TG_CHECK_TYPE(ivalue_matches(argument.type, base[i]), "[", op.operator_name().str(), "] argument '",
                  argument.name, "' (position ", i, ") expected ", argument.type.str(), ", got ",
                  base[i].type_name());
    coerce_ivalue(argument.type, base[i]);
  }
}

DispatchKeySet boxed_key_set(const OperatorHandle& op, const Stack& stack) {
  const size_t n = op.schema().arguments.size();
  DispatchKeySet ks;
  for (size_t i = stack.size() - n; i < stack.size(); ++i) {
    const IValue& v = stack[i];
    if (v.isTensor()) {
      detail::add_dispatch_keys(ks, v.toTensor());
    } else if (v.isTensorList()) {
      detail::add_dispatch_keys(ks, v.toTensorList());
    } else if (v.isList()) {
      for (const IValue& item : v.toList()) {
        if (item.isTensor()) detail::add_dispatch_keys(ks, item.toTensor());
      }
    }
  }
  const LocalDispatchKeySet& tls = local_dispatch_key_set();
  return ((ks | tls.included) - tls.excluded) & op.entry().dispatch_mask();
}

}  // namespace

void OperatorHandle::callBoxed(Stack* stack) const {
  prepare_boxed_arguments(*this, stack);
  DispatchKeySet ks = boxed_key_set(*this, *stack);
  entry_->lookup(ks).callBoxed(*this, ks, stack);
}

void OperatorHandle::redispatchBoxed(DispatchKeySet ks, Stack* stack) const {
  ks = ks & entry_->dispatch_mask();
  entry_->lookup(ks).callBoxed(*this, ks, stack);
}

}  // namespace tg
