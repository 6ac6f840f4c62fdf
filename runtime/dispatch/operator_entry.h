// OperatorEntry: everything the dispatcher knows about one operator overload: its schema,
// the kernels registered per dispatch key (runtime or alias), and the dispatch table that
// resolves them, one slot per runtime key.
// Invariants: table_[k] always points at a valid KernelFunction (KernelFunction::missing()
// when nothing serves k); dispatch_mask_ has every runtime key whose slot is not a
// fallthrough. Both are recomputed from kernels_ and the backend fallbacks on every
// registration change, and read without locks on the call path.
#pragma once

#include <array>
#include <atomic>
#include <deque>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <typeinfo>

#include "dispatch/dispatch_key_set.h"
#include "dispatch/function_schema.h"
#include "dispatch/kernel_function.h"

namespace tg {

struct OperatorName {
  std::string name;           // "tg::add"
  std::string overload_name;  // "Tensor", or "" when the operator has one overload
  std::string str() const { return overload_name.empty() ? name : name + "." + overload_name; }
  bool operator==(const OperatorName& other) const = default;
};

// The backend fallbacks the dispatcher holds, by runtime key (nullptr: none).
using FallbackTable = std::array<const KernelFunction*, kNumRuntimeKeys>;

class OperatorEntry {
 public:
  explicit OperatorEntry(OperatorName name);
  OperatorEntry(const OperatorEntry&) = delete;
  OperatorEntry& operator=(const OperatorEntry&) = delete;

  const OperatorName& name() const noexcept { return name_; }

  // The fast path: the kernel for a key set already masked by dispatch_mask().
  const KernelFunction& lookup(DispatchKeySet ks) const noexcept {
    return *table_[static_cast<int>(ks.highest_priority_key())].load(std::memory_order_acquire);
  }
  DispatchKeySet dispatch_mask() const noexcept {
    return DispatchKeySet::from_raw(dispatch_mask_.load(std::memory_order_relaxed));
  }

  // The parts below read or change registration state. Precondition: Dispatcher's mutex held.
  bool has_schema() const { return schema_.has_value(); }
  const FunctionSchema& schema() const;
  void set_schema(FunctionSchema schema, std::string debug);
  void clear_schema();
  // The unboxed C++ signature every kernel of this operator shares (nullptr until one is known).
  const std::type_info* cpp_signature() const { return cpp_signature_; }
  // Fixes the signature typed calls will use, or checks it against the one already fixed.
  void check_or_set_cpp_signature(const std::type_info& signature, const std::string& debug);

  // Returns an id for remove_kernel. Throws tg::Error when the kernel's C++ signature differs
  // from one registered before.
  uint64_t add_kernel(DispatchKey key, KernelFunction kernel, std::string debug);
  void remove_kernel(DispatchKey key, uint64_t id);
  bool has_kernel_for(DispatchKey key) const;  // registered directly on this (runtime or alias) key
  std::vector<DispatchKey> registered_keys() const;
  bool has_any_kernel() const { return !kernels_.empty(); }

  void update_table(const FallbackTable& fallbacks);
  // A human-readable dump of registrations and the resolved table, for debugging.
  std::string dump_state() const;

 private:
  struct RegisteredKernel {
    uint64_t id;
    const KernelFunction* kernel;  // points into kernel_storage_
    std::string debug;
  };

  const KernelFunction* resolve(DispatchKey key, const FallbackTable& fallbacks) const;
  const KernelFunction* newest(DispatchKey key) const;

  OperatorName name_;
  std::optional<FunctionSchema> schema_;
  std::string schema_debug_;
  // Newest registration first; removing it brings back the one it shadowed.
  std::map<DispatchKey, std::list<RegisteredKernel>> kernels_;
  // Append-only: a table slot may be read by a call in flight after its kernel is removed.
  std::deque<KernelFunction> kernel_storage_;
  uint64_t next_id_ = 0;
  const std::type_info* cpp_signature_ = nullptr;
  std::string cpp_signature_debug_;

  std::array<std::atomic<const KernelFunction*>, kNumRuntimeKeys> table_;
  std::atomic<uint64_t> dispatch_mask_;
};

}  // namespace tg
