#include "dispatch/dispatch_key.h"

namespace tg {

std::string_view to_string(DispatchKey k) {
  switch (k) {
    case DispatchKey::Undefined: return "Undefined";
#define TG_NAME_CASE(name) \
  case DispatchKey::name:  \
    return #name;
    TG_FORALL_RUNTIME_DISPATCH_KEYS(TG_NAME_CASE)
    TG_FORALL_ALIAS_DISPATCH_KEYS(TG_NAME_CASE)
#undef TG_NAME_CASE
    case DispatchKey::EndOfRuntimeKeys:
    case DispatchKey::EndOfAliasKeys:
      break;
  }
  return "InvalidDispatchKey";
}

std::ostream& operator<<(std::ostream& out, DispatchKey k) { return out << to_string(k); }

std::optional<DispatchKey> parse_dispatch_key(std::string_view name) {
#define TG_PARSE_CASE(key) \
  if (name == #key) return DispatchKey::key;
  TG_FORALL_RUNTIME_DISPATCH_KEYS(TG_PARSE_CASE)
  TG_FORALL_ALIAS_DISPATCH_KEYS(TG_PARSE_CASE)
#undef TG_PARSE_CASE
  return std::nullopt;
}

}  // namespace tg

#include "dispatch/dispatch_key_set.h"

namespace tg {

std::ostream& operator<<(std::ostream& out, DispatchKeySet ks) {
  out << "[";
  bool first = true;
  ks.for_each([&](DispatchKey k) {
    out << (first ? "" : ", ") << k;
    first = false;
  });
  return out << "]";
}

}  // namespace tg
