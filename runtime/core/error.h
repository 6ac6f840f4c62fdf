// tg::Error and the three tiers of checks.
// TG_CHECK*: a user error (message starts with "[op]" and says what was expected and given);
// TG_INTERNAL_ASSERT: a bug in tensorgen; TG_DEBUG_ASSERT: hot-path checks, debug builds only.
// Failure reporting is out of line ([[noreturn]], cold) so the checked fast path stays small.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace tg {

struct SourceLocation {
  const char* file;
  int line;
  const char* function;
};

// Every error tensorgen raises. what() is the message followed by " (at file:line)".
class Error : public std::exception {
 public:
  Error(std::string message, SourceLocation location);
  const char* what() const noexcept override { return what_.c_str(); }
  // The message alone, without the source location.
  const std::string& message() const noexcept { return message_; }
  const SourceLocation& location() const noexcept { return location_; }

 private:
  std::string message_;
  SourceLocation location_;
  std::string what_;
};

// Subclasses mirror the Python exception a PyTorch user would see for the same mistake.
class IndexError : public Error { using Error::Error; };           // out-of-range dim or index
class ValueError : public Error { using Error::Error; };           // a well-typed but invalid value
class TypeError : public Error { using Error::Error; };            // wrong dtype or argument type
class NotImplementedError : public Error { using Error::Error; };  // no kernel, unsupported dtype
class OutOfMemoryError : public Error { using Error::Error; };     // an allocator could not allocate

namespace detail {

template <typename... Args>
std::string str(const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return std::string();
  } else {
    std::ostringstream out;
    (out << ... << args);
    return out.str();
  }
}

// Overloads that avoid a stringstream for the common one-string case.
inline std::string str(const char* s) { return std::string(s); }
inline std::string str(const std::string& s) { return s; }

template <typename E>
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void throw_error(SourceLocation location, std::string message) {
  throw E(std::move(message), location);
}

[[noreturn]] [[gnu::cold]] void internal_assert_failed(SourceLocation location, const char* condition,
                                                       std::string message);

}  // namespace detail
}  // namespace tg

#define TG_SOURCE_LOCATION (::tg::SourceLocation{__FILE__, __LINE__, __func__})

#define TG_CHECK_WITH(ErrorType, cond, ...)                                                     \
  do {                                                                                          \
    if (__builtin_expect(!(cond), 0)) {                                                         \
      ::tg::detail::throw_error<::tg::ErrorType>(TG_SOURCE_LOCATION, ::tg::detail::str(__VA_ARGS__)); \
    }                                                                                           \
  } while (false)

#define TG_CHECK(cond, ...) TG_CHECK_WITH(Error, cond, __VA_ARGS__)
#define TG_CHECK_INDEX(cond, ...) TG_CHECK_WITH(IndexError, cond, __VA_ARGS__)
#define TG_CHECK_VALUE(cond, ...) TG_CHECK_WITH(ValueError, cond, __VA_ARGS__)
#define TG_CHECK_TYPE(cond, ...) TG_CHECK_WITH(TypeError, cond, __VA_ARGS__)
#define TG_CHECK_NOT_IMPLEMENTED(cond, ...) TG_CHECK_WITH(NotImplementedError, cond, __VA_ARGS__)

// Unconditional raise, for code paths that are errors by construction.
#define TG_ERROR(...) ::tg::detail::throw_error<::tg::Error>(TG_SOURCE_LOCATION, ::tg::detail::str(__VA_ARGS__))
#define TG_THROW(ErrorType, ...) \
  ::tg::detail::throw_error<::tg::ErrorType>(TG_SOURCE_LOCATION, ::tg::detail::str(__VA_ARGS__))

#define TG_INTERNAL_ASSERT(cond, ...)                                                            \
  do {                                                                                           \
    if (__builtin_expect(!(cond), 0)) {                                                          \
      ::tg::detail::internal_assert_failed(TG_SOURCE_LOCATION, #cond, ::tg::detail::str(__VA_ARGS__)); \
    }                                                                                            \
  } while (false)

#ifdef NDEBUG
#define TG_DEBUG_ASSERT(cond, ...) \
  do {                             \
  } while (false)
#else
#define TG_DEBUG_ASSERT(cond, ...) TG_INTERNAL_ASSERT(cond, __VA_ARGS__)
#endif
