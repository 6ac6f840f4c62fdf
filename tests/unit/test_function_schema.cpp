// Tests for FunctionSchema and parse_schema: canonical text round-trips exactly, loose
// whitespace parses to the canonical text, fields hold what was written, and every malformed
// schema raises tg::ValueError naming the column, what was expected and what was found.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "core/error.h"
#include "dispatch/function_schema.h"
#include "dispatch/schema_parser.h"

namespace {

using tg::BaseType;
using tg::parse_schema;

// Schemas in the canonical form str() prints; between them they use every feature.
constexpr std::string_view kCanonicalSchemas[] = {
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values, Tensor(b!) indices) -> "
    "(Tensor(a!) values, Tensor(b!) indices)",
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None) -> Tensor",
    "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "split.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]",
    "_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()",
    "tg::mse_loss(Tensor self, Tensor target, str reduction=\"mean\") -> Tensor",
    "tg::linalg::norm(Tensor self, str ord='fro') -> Tensor",
    "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
    "bool cudnn_enable=True) -> Tensor",
    "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
    "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, "
    "bool ceil_mode=False) -> Tensor",
    "permute(Tensor(a) self, int[] dims=[0, 1]) -> Tensor(a)",
    "dropout(Tensor input, float p=0.5, bool train=True, *, Generator? generator=None) -> Tensor",
    "nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100) -> Tensor",
    "batch_norm_update(Tensor input, Tensor(a!)? running_mean, Tensor(b!)? running_var, float momentum) -> "
    "(Tensor, Tensor)",
    "arange(Scalar end, *, ScalarType? dtype=long) -> Tensor",
    "size.int(Tensor self, int dim) -> int",
    "item(Tensor self) -> Scalar",
    "q_scale(Tensor self) -> float",
    "is_nonzero(Tensor self) -> bool",
    "median.dim(Tensor self, int dim) -> (Tensor values)",
    "_sync() -> ()",
};

// The message of the ValueError parse_schema raises for text, or "" when it raises nothing.
std::string error_of(std::string_view text) {
  try {
    parse_schema(text);
  } catch (const tg::ValueError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

// Every error names the parser and quotes the whole schema.
void check_error(std::string_view text, std::string_view expected) {
  CHECK_THROWS_AS(parse_schema(text), tg::ValueError);
  const std::string message = error_of(text);
  INFO("schema: ", text, "\nmessage: ", message);
  CHECK(message.starts_with("[parse_schema] "));
  CHECK(contains(message, " in: " + std::string(text)));
  CHECK(contains(message, expected));
}

}  // namespace

TEST_CASE("function_schema: canonical schemas round-trip exactly") {
  for (std::string_view text : kCanonicalSchemas) {
    INFO(text);
    const tg::FunctionSchema schema = parse_schema(text);
    CHECK(schema.str() == text);
    CHECK(parse_schema(schema.str()) == schema);
  }
}

TEST_CASE("function_schema: loose whitespace parses to the canonical text") {
  CHECK(parse_schema("  add . Tensor ( Tensor ( a ! ) self ,Tensor other,*,Scalar alpha = 1 )->Tensor( a! )  ").str() ==
        "add.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  CHECK(parse_schema("tg :: sum\t.\tdim(Tensor self,int [ 1 ] ? dim=[ 0 ,1 ],\n*, ScalarType ?dtype = None)->"
                     "( Tensor  values ,Tensor indices )")
            .str() == "tg::sum.dim(Tensor self, int[1]? dim=[0, 1], *, ScalarType? dtype=None) -> "
                      "(Tensor values, Tensor indices)");
  CHECK(parse_schema("index(Tensor self, Tensor ? [ ] indices, int x = - 1)->( )").str() ==
        "index(Tensor self, Tensor?[] indices, int x=-1) -> ()");
}

TEST_CASE("function_schema: names, overloads and operator_name") {
  const tg::FunctionSchema add = parse_schema("tg::add.Tensor(Tensor self, Tensor other) -> Tensor");
  CHECK(add.name == "tg::add");
  CHECK(add.overload_name == "Tensor");
  CHECK(add.operator_name() == "tg::add.Tensor");

  const tg::FunctionSchema relu = parse_schema("relu(Tensor self) -> Tensor");
  CHECK(relu.name == "relu");
  CHECK(relu.overload_name.empty());
  CHECK(relu.operator_name() == "relu");
}

TEST_CASE("function_schema: arguments carry types, kwarg_only and default text") {
  const tg::FunctionSchema schema = parse_schema(
      "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
  REQUIRE(schema.arguments.size() == 4);

  const tg::Argument& self = schema.arguments[0];
  CHECK(self.name == "self");
  CHECK(self.type.base == BaseType::Tensor);
  CHECK_FALSE(self.type.is_list);
  CHECK_FALSE(self.type.optional);
  CHECK_FALSE(self.default_value.has_value());
  CHECK_FALSE(self.kwarg_only);

  const tg::Argument& dim = schema.arguments[1];
  CHECK(dim.type.base == BaseType::Int);
  CHECK(dim.type.is_list);
  CHECK(dim.type.list_size == 1);
  CHECK(dim.type.optional);
  CHECK_FALSE(dim.type.element_optional);

  const tg::Argument& keepdim = schema.arguments[2];
  CHECK(keepdim.type.base == BaseType::Bool);
  CHECK(keepdim.default_value == "False");
  CHECK_FALSE(keepdim.kwarg_only);

  const tg::Argument& dtype = schema.arguments[3];
  CHECK(dtype.type.base == BaseType::ScalarType);
  CHECK(dtype.type.optional);
  CHECK(dtype.default_value == "None");
  CHECK(dtype.kwarg_only);
}

TEST_CASE("function_schema: every base type and every default spelling") {
  const tg::FunctionSchema schema = parse_schema(
      "f(Tensor a, int b=-1, SymInt c=0, float d=1e-05, bool e=True, str f=\"mean\", Scalar g=0.5, "
      "ScalarType h=long, Device i=None, Layout j=None, MemoryFormat k=contiguous_format, Generator? l=None, "
      "int[] m=[], int[2] n=[0, 1]) -> ()");
  const BaseType expected_types[] = {
      BaseType::Tensor, BaseType::Int,    BaseType::SymInt,       BaseType::Float,     BaseType::Bool,
      BaseType::Str,    BaseType::Scalar, BaseType::ScalarType,   BaseType::Device,    BaseType::Layout,
      BaseType::MemoryFormat,             BaseType::Generator,    BaseType::Int,       BaseType::Int,
  };
  const char* expected_defaults[] = {
      "", "-1", "0", "1e-05", "True", "\"mean\"", "0.5", "long", "None", "None", "contiguous_format", "None", "[]",
      "[0, 1]",
  };
  REQUIRE(schema.arguments.size() == std::size(expected_types));
  for (size_t i = 0; i < schema.arguments.size(); ++i) {
    INFO("argument ", i);
    CHECK(schema.arguments[i].type.base == expected_types[i]);
    CHECK(schema.arguments[i].default_value.value_or("") == expected_defaults[i]);
  }
  CHECK(schema.arguments[13].type.list_size == 2);
  CHECK_FALSE(schema.arguments[12].type.list_size.has_value());
  CHECK(schema.returns.empty());
  for (int i = 0; i < tg::kNumBaseTypes; ++i) {
    const auto type = static_cast<BaseType>(i);
    CHECK(tg::base_type_from_name(tg::base_type_name(type)) == type);
  }
  CHECK_FALSE(tg::base_type_from_name("Tensr").has_value());
}

TEST_CASE("function_schema: alias annotations, element_optional and is_mutable") {
  const tg::FunctionSchema add_ = parse_schema("add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)");
  REQUIRE(add_.arguments[0].type.alias.has_value());
  CHECK(add_.arguments[0].type.alias->set == "a");
  CHECK(add_.arguments[0].type.alias->is_write);
  CHECK_FALSE(add_.arguments[1].type.alias.has_value());
  REQUIRE(add_.returns.size() == 1);
  CHECK(add_.returns[0].name.empty());
  CHECK(add_.returns[0].type.alias == tg::AliasInfo{"a", true});
  CHECK(add_.is_mutable());

  const tg::FunctionSchema view = parse_schema("view(Tensor(a) self, SymInt[] size) -> Tensor(a)");
  CHECK(view.arguments[0].type.alias == tg::AliasInfo{"a", false});
  CHECK_FALSE(view.is_mutable());

  const tg::FunctionSchema foreach = parse_schema("_foreach_zero_(Tensor(b!)[] self) -> ()");
  const tg::SchemaType& list = foreach.arguments[0].type;
  CHECK(list.is_list);
  CHECK(list.alias == tg::AliasInfo{"b", true});
  CHECK(foreach.is_mutable());

  const tg::FunctionSchema index = parse_schema("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor");
  const tg::SchemaType& indices = index.arguments[1].type;
  CHECK(indices.element_optional);
  CHECK(indices.is_list);
  CHECK_FALSE(indices.optional);
  CHECK(index.arguments[0].type.str() == "Tensor");
  CHECK(indices.str() == "Tensor?[]");
}

TEST_CASE("function_schema: returns, named and unnamed") {
  const tg::FunctionSchema max = parse_schema("max.dim(Tensor self, int dim, bool keepdim=False) -> "
                                              "(Tensor values, Tensor indices)");
  REQUIRE(max.returns.size() == 2);
  CHECK(max.returns[0].name == "values");
  CHECK(max.returns[1].name == "indices");
  CHECK(max.returns[1].type.base == BaseType::Tensor);

  const tg::FunctionSchema pair = parse_schema("f(Tensor self) -> (Tensor, Tensor)");
  REQUIRE(pair.returns.size() == 2);
  CHECK(pair.returns[0].name.empty());

  CHECK(parse_schema("f(Tensor self) -> Tensor[]").returns[0].type.is_list);
  CHECK(parse_schema("f(Tensor self) -> int").returns[0].type.base == BaseType::Int);
  CHECK(parse_schema("f(Tensor self) -> Scalar").returns[0].type.base == BaseType::Scalar);
  CHECK(parse_schema("f(Tensor self) -> float").returns[0].type.base == BaseType::Float);
  CHECK(parse_schema("f(Tensor self) -> bool").returns[0].type.base == BaseType::Bool);
  CHECK(parse_schema("f() -> ()").returns.empty());
  CHECK(parse_schema("f() -> ()").arguments.empty());
  // A single named return keeps its parentheses, or the name would be lost.
  CHECK(parse_schema("f(Tensor self) -> (Tensor out)").str() == "f(Tensor self) -> (Tensor out)");
}

TEST_CASE("function_schema: error for a missing separator names the column and the token found") {
  check_error("add.Tensor(Tensor self Tensor other) -> Tensor", "expected ',' or ')' at column 24, found 'Tensor'");
}

TEST_CASE("function_schema: error for an unknown type suggests the closest known one") {
  check_error("add(Tensr self) -> Tensor", "unknown type 'Tensr' at column 5, did you mean 'Tensor'?");
  check_error("add(Tensor self, Int other) -> Tensor", "unknown type 'Int' at column 18, did you mean 'int'?");
  check_error("f(Tensor a) -> (tensor b)", "unknown type 'tensor' at column 17, did you mean 'Tensor'?");
  check_error("add(Banana self) -> Tensor", "unknown type 'Banana' at column 5, expected one of Tensor, int, SymInt");
  CHECK_FALSE(contains(error_of("add(Banana self) -> Tensor"), "did you mean"));
}

TEST_CASE("function_schema: error for a missing '->'") {
  check_error("add(Tensor self) Tensor", "expected '->' at column 18, found 'Tensor'");
  check_error("add(Tensor self)", "expected '->' at column 17, found end of input");
}

TEST_CASE("function_schema: error for unterminated parentheses") {
  check_error("add(Tensor self, Tensor other", "expected ',' or ')' at column 30, found end of input");
  check_error("max(Tensor self) -> (Tensor values, Tensor indices",
              "expected ',' or ')' at column 51, found end of input");
  check_error("f(Tensor(a! self) -> ()", "expected ')' at column 13, found 'self'");
}

TEST_CASE("function_schema: error for unterminated lists") {
  check_error("sum(Tensor self, int[2 dim) -> Tensor", "expected ']' at column 24, found 'dim'");
  check_error("f(int[] x=[0, 1) -> ()", "expected ',' or ']' at column 16, found ')'");
  check_error("f(Tensor?[", "expected a list size (a positive integer) or ']' at column 11, found end of input");
}

TEST_CASE("function_schema: error for a bad list size") {
  check_error("f(int[x] a) -> ()", "expected a list size (a positive integer) or ']' at column 7, found 'x'");
  check_error("f(int[1.5] a) -> ()", "at column 7, found '1.5'");
  check_error("f(int[0] a) -> ()", "at column 7, found '0'");
  check_error("f(int[99999999999999999999] a) -> ()", "at column 7, found '99999999999999999999'");
}

TEST_CASE("function_schema: error for a duplicate argument name") {
  check_error("f(Tensor self, Tensor self) -> ()",
              "duplicate argument name 'self' at column 23, first declared at column 10");
}

TEST_CASE("function_schema: error for a missing argument name") {
  check_error("f(Tensor, Tensor other) -> ()", "expected an argument name at column 9, found ','");
  check_error("f(Tensor self, int=1) -> ()", "expected an argument name at column 19, found '='");
}

TEST_CASE("function_schema: error for '*' given twice or left trailing") {
  check_error("f(Tensor a, *, Tensor b, *, Tensor c) -> ()",
              "'*' given twice at column 26, keyword-only arguments already start at column 13");
  check_error("f(Tensor a, *) -> ()",
              "expected ',' and a keyword-only argument after '*' at column 14, found ')'");
}

TEST_CASE("function_schema: error for trailing garbage") {
  check_error("f(Tensor a) -> Tensor b", "expected end of input at column 23, found 'b'");
  check_error("f(Tensor a) -> () ()", "expected end of input at column 19, found '('");
  check_error("f() -> () ;", "unexpected character ';' at column 11");
}

TEST_CASE("function_schema: error for an empty operator or overload name") {
  check_error("(Tensor self) -> Tensor", "expected an operator name at column 1, found '('");
  check_error("", "expected an operator name at column 1, found end of input");
  check_error("tg::(Tensor a) -> ()", "expected a name after '::' at column 5, found '('");
  check_error("add.(Tensor a) -> ()", "expected an overload name at column 5, found '('");
}

TEST_CASE("function_schema: error for an alias annotation on a non-Tensor type") {
  check_error("f(int(a) x) -> ()", "alias annotation on type 'int' at column 6, only Tensor can carry one");
  check_error("f(Tensor x) -> Scalar(a!)", "alias annotation on type 'Scalar' at column 22");
}

TEST_CASE("function_schema: error for a default value on a return") {
  check_error("f(Tensor a) -> (Tensor b=1)", "a return cannot have a default value at column 25");
  check_error("f(Tensor a) -> Tensor=1", "a return cannot have a default value at column 22");
}

TEST_CASE("function_schema: error for malformed default values") {
  check_error("f(int a=) -> ()", "expected a default value at column 9, found ')'");
  check_error("f(int a=-x) -> ()", "expected a number after '-' at column 10, found 'x'");
  check_error("f(str s=\"mean) -> ()", "unterminated string literal at column 9");
}

TEST_CASE("function_schema: errors are ValueErrors whose message() omits the source location") {
  try {
    parse_schema("f(Tensor self) Tensor");
    FAIL("expected a ValueError");
  } catch (const tg::Error& e) {
    CHECK(e.message() ==
          "[parse_schema] expected '->' at column 16, found 'Tensor' in: f(Tensor self) Tensor");
  }
}
