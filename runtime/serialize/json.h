// A small JSON value, parser and writer for file headers that may come from untrusted hands
// (safetensors). Invariants: a parsed value came from strictly valid UTF-8 JSON (RFC 8259),
// nested at most kMaxJsonDepth deep, with no duplicate object keys; object members keep
// their file order. Numbers are kept as text and read as exact integers on request.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tg::serialize {

// Deeper input is refused before the recursive parser could exhaust the stack.
inline constexpr int kMaxJsonDepth = 64;

class JsonValue {
 public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Kind kind() const { return kind_; }
  bool is_object() const { return kind_ == Kind::Object; }
  bool is_array() const { return kind_ == Kind::Array; }
  bool is_string() const { return kind_ == Kind::String; }
  bool is_number() const { return kind_ == Kind::Number; }

  // The string (Kind::String) or the number's text (Kind::Number).
  const std::string& text() const { return text_; }
  bool boolean() const { return boolean_; }
  const std::vector<JsonValue>& items() const { return items_; }
  const std::vector<std::pair<std::string, JsonValue>>& members() const { return members_; }
  // The member named `key`, or nullptr.
  const JsonValue* find(std::string_view key) const;

  static JsonValue null() { return JsonValue(Kind::Null); }
  static JsonValue from_bool(bool b);
  static JsonValue number_text(std::string text);
  static JsonValue string(std::string s);
  static JsonValue array(std::vector<JsonValue> items);
  static JsonValue object(std::vector<std::pair<std::string, JsonValue>> members);

 private:
  explicit JsonValue(Kind kind) : kind_(kind) {}
  Kind kind_ = Kind::Null;
  bool boolean_ = false;
  std::string text_;
  std::vector<JsonValue> items_;
  std::vector<std::pair<std::string, JsonValue>> members_;
};

// Parses `text`; a syntax error, invalid UTF-8, a duplicate key or nesting deeper than
// kMaxJsonDepth throws tg::ValueError "<source>: JSON header byte <offset>: expected ..., got ...".
JsonValue parse_json(std::string_view text, const std::string& source);

// The exact non-negative integer a Number holds, or throws tg::ValueError naming `what`
// (fractions, exponents, signs and values above 2^64 - 1 are refused).
uint64_t json_to_uint64(const JsonValue& value, const std::string& what);

// Compact JSON text; strings escaped so that the output is valid UTF-8 JSON.
std::string write_json(const JsonValue& value);
// `s` as a JSON string literal, quotes included.
std::string json_quote(std::string_view s);

// Whether `text` is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF);
// on failure *bad_offset is the first bad byte.
bool is_valid_utf8(std::string_view text, size_t* bad_offset = nullptr);

}  // namespace tg::serialize
