// A strict JSON reader for tests (RFC 8259 grammar): parse() returns the document as a tree
// or throws std::runtime_error naming the offset of the first thing that is not JSON.
#pragma once

#include <cctype>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace test_json {

struct Value {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool boolean = false;
  std::string text;  // a string's contents, or a number as written
  std::vector<Value> items;       // an array's elements, or an object's member values
  std::vector<std::string> keys;  // an object's member names, parallel to items

  const Value& operator[](std::string_view key) const {
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == key) return items[i];
    }
    throw std::runtime_error("no member \"" + std::string(key) + "\"");
  }
  const Value& operator[](size_t index) const { return items.at(index); }
  uint64_t as_uint() const {
    if (kind != Kind::number) throw std::runtime_error("not a number");
    return std::stoull(text);
  }
};

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  Value document() {
    Value value = parse_value();
    skip_space();
    if (pos_ != text_.size()) fail("trailing characters");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("invalid JSON at offset " + std::to_string(pos_) + ": " + what);
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Value parse_value() {
    skip_space();
    Value value;
    const char c = peek();
    if (c == '{') {
      value.kind = Value::Kind::object;
      ++pos_;
      skip_space();
      if (peek() == '}') {
        ++pos_;
        return value;
      }
      while (true) {
        skip_space();
        std::string name = parse_string();
        skip_space();
        expect(':');
        value.keys.push_back(std::move(name));
        value.items.push_back(parse_value());
        skip_space();
        if (peek() == ',') { ++pos_; continue; }
        expect('}');
        return value;
      }
    }
    if (c == '[') {
      value.kind = Value::Kind::array;
      ++pos_;
      skip_space();
      if (peek() == ']') {
        ++pos_;
        return value;
      }
      while (true) {
        value.items.push_back(parse_value());
        skip_space();
        if (peek() == ',') { ++pos_; continue; }
        expect(']');
        return value;
      }
    }
    if (c == '"') {
      value.kind = Value::Kind::string;
      value.text = parse_string();
      return value;
    }
    if (literal("true")) { value.kind = Value::Kind::boolean; value.boolean = true; return value; }
    if (literal("false")) { value.kind = Value::Kind::boolean; return value; }
    if (literal("null")) return value;
    value.kind = Value::Kind::number;
    value.text = parse_number();
    return value;
  }

  std::string parse_string() {
    expect('"');
    std::string out;
    while (peek() != '"') {
      if (pos_ >= text_.size()) fail("unterminated string");
      const char c = text_[pos_++];
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c == '\\') {
        const char e = peek();
        if (std::string_view("\"\\/bfnrtu").find(e) == std::string_view::npos) fail("bad escape");
        ++pos_;
        if (e == 'u') {
          for (int i = 0; i < 4; ++i, ++pos_) {
            if (!std::isxdigit(static_cast<unsigned char>(peek()))) fail("bad \\u escape");
          }
        }
        out += '?';  // tests only read plain strings
      } else {
        out += c;
      }
    }
    ++pos_;
    return out;
  }

  std::string parse_number() {
    const size_t start = pos_;
    auto digits = [&] {
      const size_t from = pos_;
      while (std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
      return pos_ - from;
    };
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (digits() == 0) {
      fail("expected a value");
    }
    if (peek() == '.') {
      ++pos_;
      if (digits() == 0) fail("expected digits after '.'");
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (digits() == 0) fail("expected exponent digits");
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  std::string_view text_;
  size_t pos_ = 0;
};

inline Value parse(std::string_view text) { return Reader(text).document(); }

}  // namespace test_json
