"""The C++ type mapping of the dispatcher-level signature, defaults, and C++ names."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import support  # noqa: E402,F401  (puts the repository on sys.path)

from codegen import cpp_types  # noqa: E402
from codegen.errors import Location  # noqa: E402
from codegen.schema_parser import parse_schema  # noqa: E402

HERE = Location("ops.yaml", 1)


def schema_type(text):
    """The SchemaType of `text` as an argument."""
    return parse_schema(f"f({text} x) -> Tensor", HERE).arguments[0].type


def return_of(text):
    return parse_schema(f"f() -> {text}", HERE)


ARGUMENT_TYPES = [
    ("Tensor", "const Tensor&"),
    ("Tensor(a)", "const Tensor&"),
    ("Tensor(a!)", "const Tensor&"),
    ("Tensor?", "const std::optional<Tensor>&"),
    ("Tensor[]", "TensorList"),
    ("Tensor(a!)[]", "TensorList"),
    ("Tensor?[]", "const std::vector<std::optional<Tensor>>&"),
    ("int", "int64_t"),
    ("SymInt", "int64_t"),
    ("int?", "std::optional<int64_t>"),
    ("SymInt?", "std::optional<int64_t>"),
    ("int[]", "IntArrayRef"),
    ("int[2]", "IntArrayRef"),
    ("SymInt[]", "IntArrayRef"),
    ("int[]?", "OptionalIntArrayRef"),
    ("int[1]?", "OptionalIntArrayRef"),
    ("float", "double"),
    ("float?", "std::optional<double>"),
    ("float[]", "ArrayRef<double>"),
    ("bool", "bool"),
    ("bool?", "std::optional<bool>"),
    ("bool[3]", "std::array<bool, 3>"),
    ("str", "std::string_view"),
    ("str?", "std::optional<std::string_view>"),
    ("Scalar", "const Scalar&"),
    ("Scalar?", "const std::optional<Scalar>&"),
    ("ScalarType", "ScalarType"),
    ("ScalarType?", "std::optional<ScalarType>"),
    ("Device", "Device"),
    ("Device?", "std::optional<Device>"),
    ("Layout?", "std::optional<Layout>"),
    ("MemoryFormat?", "std::optional<MemoryFormat>"),
    ("MemoryFormat", "MemoryFormat"),
    ("Generator?", "std::optional<Generator>"),
]

RETURN_TYPES = [
    ("Tensor", "Tensor"),
    ("Tensor(a)", "Tensor"),
    ("Tensor(a!)", "Tensor"),
    ("Tensor[]", "std::vector<Tensor>"),
    ("int", "int64_t"),
    ("SymInt", "int64_t"),
    ("int[]", "std::vector<int64_t>"),
    ("float", "double"),
    ("bool", "bool"),
    ("str", "std::string"),
    ("Scalar", "Scalar"),
    ("ScalarType", "ScalarType"),
    ("()", "void"),
    ("(Tensor values, Tensor indices)", "std::tuple<Tensor, Tensor>"),
    ("(Tensor, Tensor, int)", "std::tuple<Tensor, Tensor, int64_t>"),
]

DEFAULTS = [
    ("Tensor?", "None", "std::nullopt"),
    ("int?", "None", "std::nullopt"),
    ("int[]?", "None", "std::nullopt"),
    ("bool", "False", "false"),
    ("bool", "True", "true"),
    ("int[]", "[]", "{}"),
    ("int[]", "[0, 1]", "{0, 1}"),
    ("int[2]", "1", "{1, 1}"),
    ("int[]", "0", "{0}"),
    ("bool[3]", "[True, False, True]", "{true, false, true}"),
    ("str", '"mean"', '"mean"'),
    ("str", "'mean'", '"mean"'),
    ("ScalarType", "long", "ScalarType::Long"),
    ("ScalarType?", "float", "ScalarType::Float"),
    ("MemoryFormat", "contiguous_format", "MemoryFormat::Contiguous"),
    ("MemoryFormat?", "preserve_format", "MemoryFormat::Preserve"),
    ("Layout?", "strided", "Layout::Strided"),
    ("int", "1", "1"),
    ("int", "-1", "-1"),
    ("float", "1e-05", "1e-05"),
    ("float", "0.5", "0.5"),
    ("float", "1", "1"),
    ("float", "inf", "std::numeric_limits<double>::infinity()"),
    ("Scalar", "1", "1"),
    ("Scalar", "-0.5", "-0.5"),
]

BAD_DEFAULTS = [
    ("int", "None", "None needs an optional type ('int?')"),
    ("int[]", "None", "None needs an optional type ('int[]?')"),
    ("int", "1.5", "expected an integer"),
    ("bool", "1", "expected True or False"),
    ("str", "mean", "expected a quoted string"),
    ("ScalarType", "quaternion", "expected a dtype name such as long or float"),
    ("int", "[1]", "a list is not a default for a single value"),
    ("Tensor", "0", "expected None"),
]


class ArgumentTypeTest(unittest.TestCase):
    def test_argument_types(self):
        for schema_text, cpp in ARGUMENT_TYPES:
            with self.subTest(type=schema_text):
                self.assertEqual(cpp_types.argument_type(schema_type(schema_text)), cpp)

    def test_unsupported_argument_types(self):
        for schema_text in ("Generator", "bool[]", "str[]", "Scalar[]", "Device[]", "int?[]"):
            with self.subTest(type=schema_text):
                with self.assertRaises(cpp_types.UnsupportedType) as caught:
                    cpp_types.argument_type(schema_type(schema_text))
                self.assertEqual(str(caught.exception),
                                 f"type '{schema_text}' has no C++ argument type")


class ReturnTypeTest(unittest.TestCase):
    def test_return_types(self):
        for schema_text, cpp in RETURN_TYPES:
            with self.subTest(type=schema_text):
                self.assertEqual(cpp_types.returns_type(return_of(schema_text).returns), cpp)

    def test_unsupported_return_types(self):
        for schema_text in ("Tensor?", "Tensor?[]", "int?", "Device", "Generator?"):
            with self.subTest(type=schema_text):
                with self.assertRaises(cpp_types.UnsupportedType):
                    cpp_types.returns_type(return_of(schema_text).returns)


class DefaultTest(unittest.TestCase):
    def test_defaults(self):
        for schema_text, default, cpp in DEFAULTS:
            with self.subTest(type=schema_text, default=default):
                self.assertEqual(cpp_types.default_value(schema_type(schema_text), default), cpp)

    def test_defaults_that_do_not_fit(self):
        for schema_text, default, message in BAD_DEFAULTS:
            with self.subTest(type=schema_text, default=default):
                with self.assertRaises(cpp_types.BadDefault) as caught:
                    cpp_types.default_value(schema_type(schema_text), default)
                self.assertEqual(str(caught.exception), message)


class NameTest(unittest.TestCase):
    def test_overload_cpp_names(self):
        cases = [
            ("add.Tensor(Tensor self, Tensor other) -> Tensor", "add_Tensor", "add"),
            ("add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
             "add_out", "add_out"),
            ("add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", "add__Tensor", "add_"),
            ("relu(Tensor self) -> Tensor", "relu", "relu"),
            ("relu_(Tensor(a!) self) -> Tensor(a!)", "relu_", "relu_"),
        ]
        for text, cpp_name, kernel_name in cases:
            with self.subTest(text=text):
                schema = parse_schema(text, HERE)
                self.assertEqual(cpp_types.overload_cpp_name(schema), cpp_name)
                self.assertTrue(cpp_name.isidentifier())
                self.assertEqual(cpp_types.default_kernel_name(schema), kernel_name)

    def test_signatures(self):
        add = parse_schema("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                           HERE)
        self.assertEqual(cpp_types.signature(add, "add_Tensor"),
                         "Tensor add_Tensor(const Tensor& self, const Tensor& other, "
                         "const Scalar& alpha)")
        self.assertEqual(cpp_types.signature(add, "add", with_defaults=True),
                         "Tensor add(const Tensor& self, const Tensor& other, "
                         "const Scalar& alpha = 1)")
        add_out = parse_schema("add.out(Tensor self, Tensor other, *, Scalar alpha=1, "
                               "Tensor(a!) out) -> Tensor(a!)", HERE)
        self.assertEqual(cpp_types.signature(add_out, "add_out", with_defaults=True),
                         "Tensor add_out(const Tensor& self, const Tensor& other, "
                         "const Scalar& alpha, const Tensor& out)")
        max_dim = parse_schema("max.dim(Tensor self, int dim, bool keepdim=False) "
                               "-> (Tensor values, Tensor indices)", HERE)
        self.assertEqual(cpp_types.signature(max_dim, "max_dim", with_defaults=True),
                         "std::tuple<Tensor, Tensor> max_dim(const Tensor& self, int64_t dim, "
                         "bool keepdim = false)")
        arguments = cpp_types.arguments(max_dim)
        self.assertEqual([(a.type, a.name, a.default) for a in arguments],
                         [("const Tensor&", "self", None), ("int64_t", "dim", None),
                          ("bool", "keepdim", "false")])


if __name__ == "__main__":
    unittest.main()
