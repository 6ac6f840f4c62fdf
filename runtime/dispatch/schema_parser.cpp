// A recursive-descent parser for function schemas over a small lexer.
// Every token keeps its byte offset into the text, so each error names the 1-based column
// where it was found, what was expected there and what was found instead.
#include "dispatch/schema_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/suggest.h"

namespace tg {

// Note [Schema grammar]
// ~~~~~~~~~~~~~~~~~~~~~
// The subset of PyTorch's grammar tensorgen's schemas use (no "(a -> *)" wildcard aliases):
//
//   schema   := name ['.' overload] '(' [param (',' param)*] ')' '->' returns
//   name     := IDENT ('::' IDENT)*
//   param    := '*' | type IDENT ['=' default]       -- at most one '*', followed by an argument
//   returns  := type | '(' [type [IDENT] (',' type [IDENT])*] ')'
//   type     := BASE ['(' IDENT ['!'] ')'] ['?' followed by '['] ['[' [INT] ']'] ['?']
//   default  := ['-'] NUMBER | IDENT | STRING | '[' [default (',' default)*] ']'
//
// BASE is one of base_type_name's spellings, and only Tensor takes an alias annotation.
// A default keeps its literal spelling ("1e-05" stays "1e-05", "None" stays "None"); only
// the spaces inside a list default are made canonical ("[0,1]" prints as "[0, 1]").

namespace {

enum class TokenKind { Identifier, Number, String, Symbol, End };

struct Token {
  TokenKind kind;
  std::string_view text;  // a view into the schema text; empty for End
  size_t offset;          // byte offset of the token's first character
};

// The one place errors are formatted, for the lexer and the parser alike.
[[noreturn]] [[gnu::cold]] void fail_at(std::string_view text, size_t offset, const std::string& problem,
                                        const std::string& detail = {}) {
  TG_THROW(ValueError, "[parse_schema] ", problem, " at column ", offset + 1, detail.empty() ? "" : ", ", detail,
           " in: ", text);
}

bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Length of the number starting at text[start]: digits ['.' digits] [('e'|'E') ['+'|'-'] digits].
size_t number_length(std::string_view text, size_t start) {
  size_t i = start;
  auto skip_digits = [&] {
    while (i < text.size() && is_digit(text[i])) ++i;
  };
  skip_digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    skip_digits();
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    size_t exponent = i + 1;
    if (exponent < text.size() && (text[exponent] == '+' || text[exponent] == '-')) ++exponent;
    // "1e" followed by a non-digit is the number 1 and an identifier; the parser rejects it.
    if (exponent < text.size() && is_digit(text[exponent])) {
      i = exponent;
      skip_digits();
    }
  }
  return i - start;
}

std::vector<Token> lex(std::string_view text) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    size_t length = 1;
    TokenKind kind = TokenKind::Symbol;
    if (is_identifier_start(c)) {
      kind = TokenKind::Identifier;
      while (i + length < text.size() && is_identifier_char(text[i + length])) ++length;
    } else if (is_digit(c)) {
      kind = TokenKind::Number;
      length = number_length(text, i);
    } else if (c == '"' || c == '\'') {
      kind = TokenKind::String;
      while (i + length < text.size() && text[i + length] != c) {
        length += text[i + length] == '\\' ? 2 : 1;  // skip the escaped character, quotes included
      }
      if (i + length >= text.size()) {
        fail_at(text, i, "unterminated string literal", std::string("expected a closing ") + c);
      }
      ++length;  // the closing quote
    } else if (text.substr(i, 2) == "->" || text.substr(i, 2) == "::") {
      length = 2;
    } else if (std::string_view("()[],*?!=.-").find(c) == std::string_view::npos) {
      fail_at(text, i, std::string("unexpected character '") + c + "'");
    }
    tokens.push_back(Token{kind, text.substr(i, length), i});
    i += length;
  }
  tokens.push_back(Token{TokenKind::End, {}, text.size()});
  return tokens;
}

std::string describe(const Token& token) {
  if (token.kind == TokenKind::End) return "end of input";
  return "'" + std::string(token.text) + "'";
}

// "did you mean 'Tensor'?" for a near miss, otherwise the list of known types.
std::string unknown_type_hint(std::string_view name) {
  constexpr size_t kMaxSuggestionDistance = 2;
  std::vector<std::string_view> candidates;
  std::string known;
  for (int i = 0; i < kNumBaseTypes; ++i) {
    candidates.push_back(base_type_name(static_cast<BaseType>(i)));
    known += (i == 0 ? "" : ", ") + std::string(candidates.back());
  }
  if (auto best = closest_match(name, candidates, kMaxSuggestionDistance)) return "did you mean '" + *best + "'?";
  return "expected one of " + known;
}

class SchemaParser {
 public:
  explicit SchemaParser(std::string_view text) : text_(text), tokens_(lex(text)) {}

  FunctionSchema parse() {
    FunctionSchema schema;
    schema.name = parse_operator_name();
    if (accept(".")) schema.overload_name = expect_identifier("an overload name");
    schema.arguments = parse_arguments();
    expect("->");
    schema.returns = parse_returns();
    if (peek().kind != TokenKind::End) fail_expected("end of input");
    return schema;
  }

 private:
  const Token& peek(size_t ahead = 0) const { return tokens_[std::min(next_ + ahead, tokens_.size() - 1)]; }
  bool peek_is(std::string_view symbol, size_t ahead = 0) const {
    return peek(ahead).kind == TokenKind::Symbol && peek(ahead).text == symbol;
  }
  const Token& advance() {
    const Token& token = peek();
    if (token.kind != TokenKind::End) ++next_;
    return token;
  }
  bool accept(std::string_view symbol) {
    if (!peek_is(symbol)) return false;
    advance();
    return true;
  }
  void expect(std::string_view symbol) {
    if (!accept(symbol)) fail_expected("'" + std::string(symbol) + "'");
  }
  std::string expect_identifier(const std::string& what) {
    if (peek().kind != TokenKind::Identifier) fail_expected(what);
    return std::string(advance().text);
  }

  [[noreturn]] void fail_expected(const std::string& expected) const {
    fail_at(text_, peek().offset, "expected " + expected, "found " + describe(peek()));
  }

  std::string parse_operator_name() {
    std::string name = expect_identifier("an operator name");
    while (accept("::")) name += "::" + expect_identifier("a name after '::'");
    return name;
  }

  std::vector<Argument> parse_arguments() {
    expect("(");
    std::vector<Argument> arguments;
    std::vector<size_t> name_offsets;  // parallel to arguments, for the duplicate-name error
    std::optional<size_t> star_offset;
    if (accept(")")) return arguments;
    while (true) {
      if (peek_is("*")) {
        if (star_offset) {
          fail_at(text_, peek().offset, "'*' given twice",
                  "keyword-only arguments already start at column " + std::to_string(*star_offset + 1));
        }
        star_offset = advance().offset;
        // A trailing '*' would mark nothing keyword-only and could not be printed back.
        if (!accept(",")) fail_expected("',' and a keyword-only argument after '*'");
        continue;
      }
      Argument argument = parse_type_and_name(/*name_required=*/true);
      argument.kwarg_only = star_offset.has_value();
      const size_t name_offset = tokens_[next_ - 1].offset;  // the name is the last token consumed
      if (accept("=")) argument.default_value = parse_default_value();
      for (size_t i = 0; i < arguments.size(); ++i) {
        if (arguments[i].name == argument.name) {
          fail_at(text_, name_offset, "duplicate argument name '" + argument.name + "'",
                  "first declared at column " + std::to_string(name_offsets[i] + 1));
        }
      }
      arguments.push_back(std::move(argument));
      name_offsets.push_back(name_offset);
      if (accept(")")) return arguments;
      if (!accept(",")) fail_expected("',' or ')'");
    }
  }

  std::vector<Argument> parse_returns() {
    if (!accept("(")) return {parse_return(/*name_allowed=*/false)};
    std::vector<Argument> returns;
    if (accept(")")) return returns;
    while (true) {
      returns.push_back(parse_return(/*name_allowed=*/true));
      if (accept(")")) return returns;
      if (!accept(",")) fail_expected("',' or ')'");
    }
  }

  // A bare return ("-> Tensor") has no name; names need the tuple form ("-> (Tensor values)").
  Argument parse_return(bool name_allowed) {
    Argument result = parse_type_and_name(/*name_required=*/false, name_allowed);
    if (peek_is("=")) fail_at(text_, peek().offset, "a return cannot have a default value");
    return result;
  }

  Argument parse_type_and_name(bool name_required, bool name_allowed = true) {
    Argument argument;
    argument.type = parse_type();
    if (name_required) {
      argument.name = expect_identifier("an argument name");
    } else if (name_allowed && peek().kind == TokenKind::Identifier) {
      argument.name = std::string(advance().text);
    }
    return argument;
  }

  SchemaType parse_type() {
    const Token& base = peek();
    if (base.kind != TokenKind::Identifier) fail_expected("a type");
    const std::optional<BaseType> base_type = base_type_from_name(base.text);
    if (!base_type) {
      fail_at(text_, base.offset, "unknown type '" + std::string(base.text) + "'", unknown_type_hint(base.text));
    }
    advance();
    SchemaType type;
    type.base = *base_type;
    if (peek_is("(")) {
      if (type.base != BaseType::Tensor) {
        fail_at(text_, peek().offset, "alias annotation on type '" + std::string(base.text) + "'",
                "only Tensor can carry one");
      }
      advance();
      AliasInfo alias;
      alias.set = expect_identifier("an alias set name");
      alias.is_write = accept("!");
      expect(")");
      type.alias = std::move(alias);
    }
    // "Tensor?[]" (a list of optionals) versus "Tensor? name" (an optional tensor).
    if (peek_is("?") && peek_is("[", 1)) {
      advance();
      type.element_optional = true;
    }
    if (accept("[")) {
      type.is_list = true;
      type.list_size = parse_list_size();
      expect("]");
    }
    type.optional = accept("?");
    return type;
  }

  // The N in "int[N]", or nullopt for "int[]".
  std::optional<int64_t> parse_list_size() {
    if (peek_is("]")) return std::nullopt;
    const std::string_view digits = peek().text;
    int64_t size = 0;
    bool valid = peek().kind == TokenKind::Number;
    if (valid) {  // a Number token may still be "1.5" or too large for int64_t
      const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), size);
      valid = error == std::errc() && end == digits.data() + digits.size() && size > 0;
    }
    if (!valid) fail_expected("a list size (a positive integer) or ']'");
    advance();
    return size;
  }

  std::string parse_default_value() {
    if (accept("[")) {
      std::string list = "[";
      if (accept("]")) return list + "]";
      while (true) {
        list += parse_default_value();
        if (accept("]")) return list + "]";
        if (!accept(",")) fail_expected("',' or ']'");
        list += ", ";
      }
    }
    if (accept("-")) {
      if (peek().kind != TokenKind::Number) fail_expected("a number after '-'");
      return "-" + std::string(advance().text);
    }
    const TokenKind kind = peek().kind;
    if (kind != TokenKind::Number && kind != TokenKind::Identifier && kind != TokenKind::String) {
      fail_expected("a default value");
    }
    return std::string(advance().text);
  }

  std::string_view text_;
  std::vector<Token> tokens_;  // ends with an End token, so peek() never runs off the end
  size_t next_ = 0;            // index of the next unconsumed token
};

}  // namespace

FunctionSchema parse_schema(std::string_view text) { return SchemaParser(text).parse(); }

}  // namespace tg
