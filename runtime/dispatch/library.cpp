#include "dispatch/library.h"

#include "dispatch/schema_parser.h"

namespace tg {

Library::Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char* file, int line)
    : kind_(kind), ns_(std::move(ns)), key_(key), file_(file), line_(line) {
  TG_CHECK_VALUE(kind != Kind::Impl || key.has_value(), "[Library] an Impl library needs a dispatch key (", debug(),
                 ")");
}

std::string Library::debug() const {
  return file_.empty() ? "library '" + ns_ + "'" : file_ + ":" + std::to_string(line_);
}

OperatorName Library::qualified(std::string_view name) const {
  size_t ns_end = name.find("::");
  std::string full = ns_end == std::string_view::npos ? ns_ + "::" + std::string(name) : std::string(name);
  if (ns_end != std::string_view::npos) {
    TG_CHECK_VALUE(name.substr(0, ns_end) == ns_, "[Library] ", debug(), " registers '", name,
                   "' outside its namespace '", ns_, "'");
  }
  size_t dot = full.find('.', full.find("::") + 2);
  if (dot == std::string::npos) return OperatorName{full, ""};
  return OperatorName{full.substr(0, dot), full.substr(dot + 1)};
}

DispatchKey Library::library_key(const char* what) const {
  TG_CHECK_VALUE(key_.has_value(), "[Library] ", what, " without a dispatch key needs an Impl library (", debug(),
                 " is not one)");
  return *key_;
}

Library& Library::def(std::string_view schema_text) {
  TG_CHECK_VALUE(kind_ != Kind::Impl, "[Library] ", debug(), " is an Impl library and cannot define operators");
  FunctionSchema schema = parse_schema(schema_text);
  OperatorName name = qualified(schema.operator_name());
  schema.name = name.name;
  registrations_.push_back(Dispatcher::singleton().registerDef(std::move(schema), debug()));
  return *this;
}

Library& Library::def(std::string_view schema_text, KernelFunction kernel) {
  def(schema_text);
  FunctionSchema schema = parse_schema(schema_text);
  return impl(schema.operator_name(), DispatchKey::CompositeImplicitAutograd, std::move(kernel));
}

Library& Library::impl(std::string_view name, KernelFunction kernel) {
  return impl(name, library_key("impl"), std::move(kernel));
}

Library& Library::impl(std::string_view name, DispatchKey key, KernelFunction kernel) {
  TG_CHECK_VALUE(!key_.has_value() || *key_ == key, "[Library] ", debug(), " registers kernels for ", *key_,
                 ", not for ", key);
  registrations_.push_back(Dispatcher::singleton().registerImpl(qualified(name), key, std::move(kernel), debug()));
  return *this;
}

Library& Library::fallback(KernelFunction kernel) { return fallback(library_key("fallback"), std::move(kernel)); }

Library& Library::fallback(DispatchKey key, KernelFunction kernel) {
  registrations_.push_back(Dispatcher::singleton().registerFallback(key, std::move(kernel), debug()));
  return *this;
}

}  // namespace tg
