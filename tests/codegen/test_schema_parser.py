"""The schema-string parser: canonical round trips, parsed fields, and malformed strings."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import support  # noqa: E402,F401  (puts the repository on sys.path)

from codegen.errors import Location  # noqa: E402
from codegen.model import Annotation, SchemaType  # noqa: E402
from codegen.schema_parser import SchemaSyntaxError, parse_schema, schema_display_name  # noqa: E402

HERE = Location("ops.yaml", 1)

CANONICAL = [
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "relu(Tensor self) -> Tensor",
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
    "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor",
    "sum.dim(Tensor self, int[] dim=[0, 1], bool keepdim=False) -> Tensor",
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    "unbind.int(Tensor(a) self, int dim=0) -> Tensor[]",
    "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
    "int[2] padding=0, int[2] dilation=1, int groups=1) -> Tensor",
    "mse_loss(Tensor self, Tensor target, str reduction=\"mean\") -> Tensor",
    "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, "
    "Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor",
    "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    "randint(int high, int[] size, *, ScalarType? dtype=long, "
    "Generator? generator=None) -> Tensor",
    "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
    "_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()",
    "_foreach_add.List_out(Tensor[] self, Tensor[] other, *, Scalar alpha=1, "
    "Tensor(a!)[] out) -> ()",
    "item(Tensor self) -> Scalar",
    "size.int(Tensor self, int dim) -> int",
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "native_layer_norm_backward(Tensor grad_out, Tensor input, int[] normalized_shape, "
    "Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) "
    "-> (Tensor, Tensor, Tensor)",
    "__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
    "clip_grad(Tensor self, float max_norm=inf, float min_norm=-inf) -> Tensor",
    "result_type.Scalar(Tensor tensor, Scalar other) -> ScalarType",
]


def schema_named(full_name):
    """The parsed canonical schema with this full name."""
    schemas = (parse_schema(text, HERE) for text in CANONICAL)
    return next(schema for schema in schemas if schema.full_name == full_name)


class RoundTripTest(unittest.TestCase):
    def test_canonical_schemas_print_as_written(self):
        self.assertGreaterEqual(len(CANONICAL), 15)
        for text in CANONICAL:
            with self.subTest(text=text):
                self.assertEqual(str(parse_schema(text, HERE)), text)

    def test_printing_normalises_spacing(self):
        text = "add.Tensor( Tensor self,Tensor other ,*,Scalar alpha = 1 )->Tensor"
        self.assertEqual(str(parse_schema(text, HERE)),
                         "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
        self.assertEqual(str(parse_schema("f(int[] d=[0,1]) -> (Tensor)", HERE)),
                         "f(int[] d=[0, 1]) -> Tensor")

    def test_reparsing_the_printed_form_gives_an_equal_schema(self):
        for text in CANONICAL:
            with self.subTest(text=text):
                schema = parse_schema(text, HERE)
                self.assertEqual(parse_schema(str(schema), HERE), schema)


class FieldTest(unittest.TestCase):
    def test_name_overload_and_arguments(self):
        schema = schema_named("add.Tensor")
        self.assertEqual((schema.name, schema.overload_name, schema.full_name),
                         ("add", "Tensor", "add.Tensor"))
        self.assertEqual(schema.argument_names, ("self", "other", "alpha"))
        self.assertEqual([a.kwarg_only for a in schema.arguments], [False, False, True])
        self.assertEqual(schema.argument("alpha").default, "1")
        self.assertEqual(schema.argument("alpha").type, SchemaType("Scalar"))
        self.assertIsNone(schema.argument("self").default)
        self.assertEqual(len(schema.returns), 1)
        self.assertIsNone(schema.returns[0].name)
        self.assertEqual(schema.loc, HERE)

    def test_no_overload_name(self):
        schema = parse_schema("relu(Tensor self) -> Tensor", HERE)
        self.assertEqual((schema.name, schema.overload_name, schema.full_name),
                         ("relu", "", "relu"))

    def test_optional_list_with_size(self):
        dim = schema_named("sum.dim_IntList").argument("dim").type
        self.assertEqual((dim.base, dim.is_list, dim.list_size, dim.optional,
                          dim.element_optional), ("int", True, 1, True, False))
        self.assertEqual(str(dim), "int[1]?")

    def test_list_of_optional_tensors(self):
        indices = schema_named("index.Tensor").argument("indices").type
        self.assertEqual((indices.element_optional, indices.is_list, indices.optional),
                         (True, True, False))
        self.assertEqual(str(indices), "Tensor?[]")

    def test_alias_annotations(self):
        self_type = schema_named("add_.Tensor").argument("self").type
        self.assertEqual(self_type.annotation, Annotation("a", True))
        self.assertTrue(self_type.is_write)
        view = schema_named("unbind.int").argument("self").type
        self.assertEqual(view.annotation, Annotation("a", False))
        self.assertFalse(view.is_write)
        outs = schema_named("_foreach_add.List_out").argument("out").type
        self.assertEqual((outs.is_list, outs.annotation), (True, Annotation("a", True)))
        self.assertEqual(str(outs), "Tensor(a!)[]")

    def test_defaults_are_kept_as_literal_text(self):
        schema = schema_named("layer_norm")
        self.assertEqual(schema.argument("eps").default, "1e-05")
        self.assertEqual(schema.argument("weight").default, "None")
        self.assertEqual(schema.argument("cudnn_enable").default, "True")
        self.assertEqual(schema_named("mse_loss").argument("reduction").default,
                         '"mean"')
        self.assertEqual(schema_named("sum.dim").argument("dim").default, "[0, 1]")
        self.assertEqual(schema_named("contiguous").argument("memory_format").default,
                         "contiguous_format")
        self.assertEqual(schema_named("randint").argument("dtype").default, "long")
        self.assertEqual(schema_named("hardtanh").argument("min_val").default, "-1")
        self.assertEqual(parse_schema("f(int[] a=[]) -> Tensor", HERE).argument("a").default,
                         "[]")

    def test_returns(self):
        named = schema_named("max.dim").returns
        self.assertEqual([(str(r.type), r.name) for r in named],
                         [("Tensor", "values"), ("Tensor", "indices")])
        self.assertEqual(schema_named("_foreach_add_.List").returns, ())
        self.assertEqual(str(schema_named("unbind.int").returns[0].type), "Tensor[]")
        self.assertEqual(str(schema_named("item").returns[0].type), "Scalar")
        self.assertEqual(len(schema_named("native_layer_norm_backward").returns), 3)

    def test_display_name_of_an_unparsable_schema(self):
        self.assertEqual(schema_display_name("add.Tensor(Tensor self"), "add.Tensor")
        self.assertEqual(schema_display_name("add.Tensor"), "add.Tensor")


MALFORMED = [
    ("add.Tensor(Tensor self Tensor other) -> Tensor",
     "expected ',' or ')' at column 24, found 'Tensor'"),
    ("add.Tensor(Tensor self, Tensor other)",
     "expected '->' at column 38, found end of schema"),
    ("add.Tensor(Tensr self) -> Tensor",
     "unknown type 'Tensr' at column 12; did you mean 'Tensor'?"),
    ("add.Tensor(int(a) self) -> Tensor",
     "alias annotation on 'int' at column 15; only Tensor can alias"),
    ("add.(Tensor self) -> Tensor", "expected an overload name at column 5, found '('"),
    ("add Tensor(Tensor self) -> Tensor", "expected '(' or '.' at column 5, found 'Tensor'"),
    ("add.Tensor(Tensor self, ) -> Tensor", "expected an argument at column 25, found ')'"),
    ("f(Tensor self, *) -> Tensor", "expected ',' after '*' at column 17, found ')'"),
    ("f(Tensor self, *, int a, *, int b) -> Tensor", "unexpected second '*' at column 26"),
    ("f(Tensor self, int x=) -> Tensor", "expected a default value at column 22, found ')'"),
    ("f(Tensor self, int[] d=[0 1]) -> Tensor", "expected ',' or ']' at column 27, found '1'"),
    ("f(Tensor(a self) -> Tensor", "expected '!' or ')' at column 12, found 'self'"),
    ("f(int[x] a) -> Tensor", "expected a list size or ']' at column 7, found 'x'"),
    ("f(int[0] a) -> Tensor", "list size must be a positive integer at column 7, found '0'"),
    ('f(str s="mean) -> Tensor', "unterminated string at column 9"),
    ("f(Tensor @self) -> Tensor", "unexpected character '@' at column 10"),
    ("f(Tensor self) -> Tensor extra stuff", "expected end of schema at column 32, found 'stuff'"),
    ("f(Tensor self) -> (Tensor a Tensor b)", "expected ',' or ')' at column 29, found 'Tensor'"),
    ("f(Tensor self) -> ", "expected a return type at column 19, found end of schema"),
    ("(Tensor self) -> Tensor", "expected an operator name at column 1, found '('"),
]


class MalformedTest(unittest.TestCase):
    def test_each_malformed_string_names_the_column_and_what_was_expected(self):
        for text, message in MALFORMED:
            with self.subTest(text=text):
                with self.assertRaises(SchemaSyntaxError) as caught:
                    parse_schema(text, HERE)
                self.assertEqual(caught.exception.message, message)

    def test_column_is_one_based_within_the_string(self):
        text = "add.Tensor(Tensor self Tensor other) -> Tensor"
        with self.assertRaises(SchemaSyntaxError) as caught:
            parse_schema(text, HERE)
        self.assertEqual(caught.exception.column, text.index("Tensor other") + 1)


if __name__ == "__main__":
    unittest.main()
