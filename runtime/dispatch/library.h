// Library: the registration API, in the spirit of TORCH_LIBRARY.
//   TG_LIBRARY(tg, m) { m.def("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"); }
//   TG_LIBRARY_IMPL(tg, CPU, m) { m.impl("add.Tensor", &add_cpu); }
// A Library undoes its registrations when destroyed, so a test can register operators in
// a scope; the macros make static Libraries that live as long as the process.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/dispatcher.h"

namespace tg {

class Library {
 public:
  enum class Kind {
    Def,       // defines operators in a namespace (one per namespace, by convention)
    Impl,      // registers kernels for one dispatch key
    Fragment,  // defines more operators in a namespace defined elsewhere
  };

  Library(Kind kind, std::string ns, std::optional<DispatchKey> key = std::nullopt, const char* file = "",
          int line = 0);
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  Library(Library&&) = default;

  // Defines an operator from its schema string; the library's namespace is prepended when
  // the name has none. Throws tg::ValueError for a malformed schema.
  Library& def(std::string_view schema);
  // Defines an operator and registers `kernel` as its CompositeImplicitAutograd kernel.
  Library& def(std::string_view schema, KernelFunction kernel);

  // Registers a kernel on the library's key (Impl libraries) or on `key`.
  Library& impl(std::string_view name, KernelFunction kernel);
  Library& impl(std::string_view name, DispatchKey key, KernelFunction kernel);
  template <typename Ret, typename... Args>
  Library& impl(std::string_view name, Ret (*fn)(Args...)) {
    return impl(name, KernelFunction::makeFromUnboxedRuntimeFunction(fn));
  }
  template <typename Ret, typename... Args>
  Library& impl(std::string_view name, DispatchKey key, Ret (*fn)(Args...)) {
    return impl(name, key, KernelFunction::makeFromUnboxedRuntimeFunction(fn));
  }

  // A kernel for every operator on the library's key (or `key`) that has none of its own.
  Library& fallback(KernelFunction kernel);
  Library& fallback(DispatchKey key, KernelFunction kernel);

 private:
  OperatorName qualified(std::string_view name) const;
  DispatchKey library_key(const char* what) const;
  std::string debug() const;

  Kind kind_;
  std::string ns_;
  std::optional<DispatchKey> key_;
  std::string file_;
  int line_;
  std::vector<RegistrationHandle> registrations_;
};

namespace detail {
// Runs a TG_LIBRARY body at static-initialisation time and keeps its Library alive.
class StaticLibrary {
 public:
  StaticLibrary(Library::Kind kind, void (*init)(Library&), const char* ns, std::optional<DispatchKey> key,
                const char* file, int line)
      : library_(kind, ns, key, file, line) {
    init(library_);
  }

 private:
  Library library_;
};
}  // namespace detail

}  // namespace tg

#define TG_CONCAT_INNER(a, b) a##b
#define TG_CONCAT(a, b) TG_CONCAT_INNER(a, b)

#define TG_LIBRARY_STATIC(kind, ns, key, m, uid)                                                            \
  static void TG_CONCAT(tg_library_init_, uid)(::tg::Library&);                                           \
  static const ::tg::detail::StaticLibrary TG_CONCAT(tg_library_static_, uid)(                            \
      kind, &TG_CONCAT(tg_library_init_, uid), #ns, key, __FILE__, __LINE__);                              \
  void TG_CONCAT(tg_library_init_, uid)(::tg::Library & m)

#define TG_LIBRARY(ns, m) TG_LIBRARY_STATIC(::tg::Library::Kind::Def, ns, std::nullopt, m, TG_CONCAT(ns##_, __COUNTER__))
#define TG_LIBRARY_FRAGMENT(ns, m) \
  TG_LIBRARY_STATIC(::tg::Library::Kind::Fragment, ns, std::nullopt, m, TG_CONCAT(ns##_, __COUNTER__))
#define TG_LIBRARY_IMPL(ns, key, m) \
  TG_LIBRARY_STATIC(::tg::Library::Kind::Impl, ns, ::tg::DispatchKey::key, m, TG_CONCAT(ns##_##key##_, __COUNTER__))
