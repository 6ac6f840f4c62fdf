#include "core/error.h"

namespace tg {

namespace {
std::string format_what(const std::string& message, const SourceLocation& location) {
  return message + " (at " + location.file + ":" + std::to_string(location.line) + ")";
}
}  // namespace

Error::Error(std::string message, SourceLocation location)
    : message_(std::move(message)), location_(location), what_(format_what(message_, location_)) {}

namespace detail {

void internal_assert_failed(SourceLocation location, const char* condition, std::string message) {
  std::string text = "internal assert failed: " + std::string(condition);
  if (!message.empty()) text += ": " + message;
  text += ". This is a bug in tensorgen; please report it.";
  throw Error(std::move(text), location);
}

}  // namespace detail
}  // namespace tg
