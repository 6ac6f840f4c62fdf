#include "serialize/json.h"

#include <cstdio>

#include "core/error.h"

namespace tg::serialize {

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& [name, value] : members_) {
    if (name == key) return &value;
  }
  return nullptr;
}

JsonValue JsonValue::from_bool(bool b) {
  JsonValue v(Kind::Bool);
  v.boolean_ = b;
  return v;
}

JsonValue JsonValue::number_text(std::string text) {
  JsonValue v(Kind::Number);
  v.text_ = std::move(text);
  return v;
}

JsonValue JsonValue::string(std::string s) {
  JsonValue v(Kind::String);
  v.text_ = std::move(s);
  return v;
}

JsonValue JsonValue::array(std::vector<JsonValue> items) {
  JsonValue v(Kind::Array);
  v.items_ = std::move(items);
  return v;
}

JsonValue JsonValue::object(std::vector<std::pair<std::string, JsonValue>> members) {
  JsonValue v(Kind::Object);
  v.members_ = std::move(members);
  return v;
}

bool is_valid_utf8(std::string_view text, size_t* bad_offset) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  auto fail = [&](size_t at) {
    if (bad_offset != nullptr) *bad_offset = at;
    return false;
  };
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t length;
    uint32_t code;
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2, code = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3, code = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4, code = c & 0x07;
    } else {
      return fail(i);
    }
    if (i + length > n) return fail(i);
    for (size_t k = 1; k < length; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return fail(i);
      code = (code << 6) | (s[i + k] & 0x3F);
    }
    const bool overlong = (length == 3 && code < 0x800) || (length == 4 && code < 0x10000);
    if (overlong || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) return fail(i);
    i += length;
  }
  return true;
}

namespace {

void append_utf8(std::string& out, uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// A recursive-descent parser over validated UTF-8; depth_ bounds the recursion.
class Parser {
 public:
  Parser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  JsonValue parse_document() {
    skip_space();
    JsonValue value = parse_value(1);
    skip_space();
    if (pos_ != text_.size()) fail("the end of the JSON text");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& expected) const {
    std::string got;
    if (pos_ >= text_.size()) {
      got = "the end of the header";
    } else {
      const unsigned char c = static_cast<unsigned char>(text_[pos_]);
      char buffer[16];
      if (c >= 0x20 && c < 0x7F) {
        std::snprintf(buffer, sizeof buffer, "'%c'", c);
      } else {
        std::snprintf(buffer, sizeof buffer, "byte 0x%02X", c);
      }
      got = buffer;
    }
    TG_THROW(ValueError, source_, ": JSON header byte ", pos_, ": expected ", expected, ", got ", got);
  }

  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect_word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) fail(std::string("'") + std::string(word) + "'");
    pos_ += word.size();
  }

  JsonValue parse_value(int depth) {
    if (depth > kMaxJsonDepth) {
      fail("nesting at most " + std::to_string(kMaxJsonDepth) + " deep");
    }
    if (pos_ >= text_.size()) fail("a JSON value");
    switch (text_[pos_]) {
      case '{':
        return parse_object(depth);
      case '[':
        return parse_array(depth);
      case '"':
        return JsonValue::string(parse_string());
      case 't':
        expect_word("true");
        return JsonValue::from_bool(true);
      case 'f':
        expect_word("false");
        return JsonValue::from_bool(false);
      case 'n':
        expect_word("null");
        return JsonValue::null();
      default:
        return parse_number();
    }
  }

  JsonValue parse_object(int depth) {
    ++pos_;  // '{'
    std::vector<std::pair<std::string, JsonValue>> members;
    skip_space();
    if (consume('}')) return JsonValue::object(std::move(members));
    while (true) {
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != '"') fail("a member name in double quotes");
      const size_t key_at = pos_;
      std::string key = parse_string();
      for (const auto& member : members) {
        if (member.first == key) {
          pos_ = key_at;
          fail("a member name not used before in this object (\"" + key + "\" repeats)");
        }
      }
      skip_space();
      if (!consume(':')) fail("':'");
      skip_space();
      JsonValue value = parse_value(depth + 1);
      members.emplace_back(std::move(key), std::move(value));
      skip_space();
      if (consume('}')) return JsonValue::object(std::move(members));
      if (!consume(',')) fail("',' or '}'");
    }
  }

  JsonValue parse_array(int depth) {
    ++pos_;  // '['
    std::vector<JsonValue> items;
    skip_space();
    if (consume(']')) return JsonValue::array(std::move(items));
    while (true) {
      skip_space();
      items.push_back(parse_value(depth + 1));
      skip_space();
      if (consume(']')) return JsonValue::array(std::move(items));
      if (!consume(',')) fail("',' or ']'");
    }
  }

  uint32_t parse_hex4() {
    if (pos_ + 4 > text_.size()) fail("four hex digits after \\u");
    uint32_t code = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text_[pos_];
      code <<= 4;
      if (c >= '0' && c <= '9') {
        code |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        code |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        code |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        fail("a hex digit in a \\u escape");
      }
      ++pos_;
    }
    return code;
  }

  std::string parse_string() {
    ++pos_;  // '"'
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) fail("a closing '\"'");
      const unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c < 0x20) fail("no control character inside a string (escape it)");
      if (c != '\\') {
        out += static_cast<char>(c);
        ++pos_;
        continue;
      }
      ++pos_;
      if (pos_ >= text_.size()) fail("an escape character after '\\'");
      const char e = text_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t code = parse_hex4();
          if (code >= 0xD800 && code <= 0xDBFF) {
            if (!consume('\\') || !consume('u')) fail("a low surrogate \\u escape after a high surrogate");
            const uint32_t low = parse_hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("a low surrogate (\\uDC00-\\uDFFF)");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else if (code >= 0xDC00 && code <= 0xDFFF) {
            fail("no lone low surrogate");
          }
          append_utf8(out, code);
          break;
        }
        default:
          --pos_;
          fail("one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u");
      }
    }
  }

  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  JsonValue parse_number() {
    const size_t start = pos_;
    consume('-');
    if (pos_ >= text_.size() || !is_digit(text_[pos_])) fail("a JSON value");
    if (!consume('0')) {
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    }
    if (consume('.')) {
      if (pos_ >= text_.size() || !is_digit(text_[pos_])) fail("a digit after '.'");
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    }
    if (consume('e') || consume('E')) {
      if (!consume('+')) consume('-');
      if (pos_ >= text_.size() || !is_digit(text_[pos_])) fail("a digit in the exponent");
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    }
    return JsonValue::number_text(std::string(text_.substr(start, pos_ - start)));
  }

  std::string_view text_;
  const std::string& source_;
  size_t pos_ = 0;
};

}  // namespace

JsonValue parse_json(std::string_view text, const std::string& source) {
  size_t bad = 0;
  TG_CHECK_VALUE(is_valid_utf8(text, &bad), source, ": JSON header byte ", bad,
                 ": expected UTF-8 text, got an invalid ", "UTF-8 sequence");
  return Parser(text, source).parse_document();
}

uint64_t json_to_uint64(const JsonValue& value, const std::string& what) {
  TG_CHECK_VALUE(value.is_number(), what, ": expected a non-negative integer, got a JSON ",
                 value.is_string() ? "string" : "non-number");
  const std::string& t = value.text();
  uint64_t result = 0;
  for (char c : t) {
    TG_CHECK_VALUE(c >= '0' && c <= '9', what, ": expected a non-negative integer, got ", t);
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    TG_CHECK_VALUE(result <= (UINT64_MAX - digit) / 10, what, ": expected an integer below 2^64, got ", t);
    result = result * 10 + digit;
  }
  return result;
}

std::string json_quote(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
    } else {
      out += ch;
    }
  }
  out += '"';
  return out;
}

namespace {

void write_value(const JsonValue& value, std::string& out) {
  switch (value.kind()) {
    case JsonValue::Kind::Null:
      out += "null";
      break;
    case JsonValue::Kind::Bool:
      out += value.boolean() ? "true" : "false";
      break;
    case JsonValue::Kind::Number:
      out += value.text();
      break;
    case JsonValue::Kind::String:
      out += json_quote(value.text());
      break;
    case JsonValue::Kind::Array: {
      out += '[';
      for (size_t i = 0; i < value.items().size(); ++i) {
        if (i > 0) out += ',';
        write_value(value.items()[i], out);
      }
      out += ']';
      break;
    }
    case JsonValue::Kind::Object: {
      out += '{';
      bool first = true;
      for (const auto& [key, member] : value.members()) {
        if (!first) out += ',';
        first = false;
        out += json_quote(key);
        out += ':';
        write_value(member, out);
      }
      out += '}';
      break;
    }
  }
}

}  // namespace

std::string write_json(const JsonValue& value) {
  std::string out;
  write_value(value, out);
  return out;
}

}  // namespace tg::serialize
