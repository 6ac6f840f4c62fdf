"""The typed model: overload kinds, names, structured groups, dispatch tables, derivatives,
conformance hints, locations and immutability."""

import dataclasses
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import SchemaTestCase  # noqa: E402

from codegen.errors import Location  # noqa: E402
from codegen.model import (DerivativeKind, Domain, FrozenDict, SchemaKind,  # noqa: E402
                           Tolerance)
from codegen.schema_parser import parse_schema  # noqa: E402

HERE = Location("ops.yaml", 1)

MUL = """
- func: mul.Tensor(Tensor self, Tensor other) -> Tensor
  variants: function, method
  structured_delegate: mul.out
  tags: [pointwise, reduction]

- func: mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
  variants: method
  structured_delegate: mul.out

- func: mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU, CUDA: mul_out
    CompositeExplicitAutograd: mul_out_generic

- func: relu(Tensor self) -> Tensor
"""


class KindTest(unittest.TestCase):
    def kind(self, text):
        return parse_schema(text, HERE).kind

    def test_kinds(self):
        self.assertEqual(self.kind("add.Tensor(Tensor self, Tensor other) -> Tensor"),
                         SchemaKind.functional)
        self.assertEqual(self.kind("add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"),
                         SchemaKind.inplace)
        self.assertEqual(self.kind("add.out(Tensor self, Tensor other, *, Tensor(a!) out) "
                                   "-> Tensor(a!)"), SchemaKind.out)
        self.assertEqual(self.kind("_fill(Tensor(a!) buffer, Scalar value) -> ()"),
                         SchemaKind.mutable)
        self.assertEqual(self.kind("__iand__.Tensor(Tensor(a!) self, Tensor other) "
                                   "-> Tensor(a!)"), SchemaKind.inplace)

    def test_kind_compares_with_its_string(self):
        self.assertEqual(SchemaKind.out, "out")
        self.assertEqual(str(SchemaKind.inplace), "inplace")

    def test_inplace_name_needs_a_written_self(self):
        self.assertEqual(self.kind("relu_(Tensor self) -> Tensor"), SchemaKind.functional)

    def test_names(self):
        schema = parse_schema("add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", HERE)
        self.assertEqual((schema.name, schema.root_name, schema.full_name),
                         ("add_", "add", "add_.Tensor"))
        self.assertTrue(schema.is_inplace_name)
        dunder = parse_schema("__and__.Tensor(Tensor self, Tensor other) -> Tensor", HERE)
        self.assertFalse(dunder.is_inplace_name)
        iand = parse_schema("__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", HERE)
        self.assertEqual(iand.root_name, "__and__")

    def test_argument_groups(self):
        schema = parse_schema("max.dim_max(Tensor self, int dim, bool keepdim=False, *, "
                              "Tensor(a!) max, Tensor(b!) max_values) "
                              "-> (Tensor(a!) values, Tensor(b!) indices)", HERE)
        self.assertEqual([a.name for a in schema.out_arguments], ["max", "max_values"])
        self.assertEqual([a.name for a in schema.non_out_arguments], ["self", "dim", "keepdim"])
        self.assertEqual(schema.self_argument.name, "self")
        self.assertEqual(schema.output_names, ("result0", "result1", "values", "indices"))
        self.assertEqual(parse_schema("relu(Tensor self) -> Tensor", HERE).output_names,
                         ("result", "result0"))

    def test_signature_key_ignores_annotations_and_out_arguments(self):
        functional = parse_schema("add.Tensor(Tensor self, Tensor other) -> Tensor", HERE)
        inplace = parse_schema("add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", HERE)
        out = parse_schema("add.out(Tensor self, Tensor other, *, Tensor(a!) out) "
                           "-> Tensor(a!)", HERE)
        self.assertEqual(functional.signature_key(), inplace.signature_key())
        self.assertEqual(functional.signature_key(), out.signature_key())


class RegistryTest(SchemaTestCase):
    def test_structured_group(self):
        registry = self.load(MUL)
        (group,) = registry.structured_groups
        self.assertEqual(group.out.full_name, "mul.out")
        self.assertEqual(group.functional.full_name, "mul.Tensor")
        self.assertEqual(group.inplace.full_name, "mul_.Tensor")
        self.assertEqual(group.root_name, "mul")
        self.assertEqual([f.full_name for f in group.functions],
                         ["mul.Tensor", "mul_.Tensor", "mul.out"])

    def test_dispatch_keys_joined_by_commas_expand(self):
        out = self.load(MUL).get("mul.out")
        self.assertEqual(dict(out.dispatch), {"CPU": "mul_out", "CUDA": "mul_out",
                                              "CompositeExplicitAutograd": "mul_out_generic"})
        self.assertFalse(out.dispatch_defaulted)

    def test_entry_without_dispatch_is_composite_implicit(self):
        registry = self.load(MUL)
        relu = registry.get("relu")
        self.assertEqual(dict(relu.dispatch), {"CompositeImplicitAutograd": "relu"})
        self.assertTrue(relu.dispatch_defaulted)
        self.assertEqual(dict(registry.get("mul.Tensor").dispatch), {})

    def test_fields_and_defaults(self):
        registry = self.load(MUL)
        mul = registry.get("mul.Tensor")
        self.assertEqual(mul.variants, ("function", "method"))
        self.assertEqual(mul.tags, ("pointwise", "reduction"))
        self.assertEqual(mul.structured_delegate, "mul.out")
        self.assertTrue(mul.has_method_variant)
        relu = registry.get("relu")
        self.assertEqual((relu.variants, relu.tags, relu.device_check, relu.device_guard,
                          relu.structured),
                         (("function",), (), "ExactSame", True, False))
        self.assertIsNone(relu.derivatives)
        self.assertIsNone(relu.conformance)
        self.assertEqual([f.full_name for f in registry],
                         ["mul.Tensor", "mul_.Tensor", "mul.out", "relu"])

    def test_locations_of_entries_and_keys(self):
        registry = self.load(MUL)
        out = registry.get("mul.out")
        self.assertEqual(out.loc.line, 10)
        self.assertEqual(out.func.loc.line, 10)
        self.assertEqual(out.loc_of("dispatch").line, 12)
        self.assertEqual(out.loc_of("absent").line, 10)
        self.assertTrue(out.loc.file.endswith("ops.yaml"))

    def test_model_is_immutable_and_hashable(self):
        registry = self.load(MUL)
        mul = registry.get("mul.Tensor")
        with self.assertRaises(dataclasses.FrozenInstanceError):
            mul.structured = True
        with self.assertRaises(TypeError):
            mul.dispatch["CPU"] = "x"
        with self.assertRaises(AttributeError):
            mul.dispatch._items = {}
        self.assertIsInstance(hash(registry), int)
        self.assertEqual(FrozenDict({"a": 1}), FrozenDict([("a", 1)]))

    def test_other_entry_keys(self):
        registry = self.load("""
            - func: bernoulli(Tensor self, *, Generator? generator=None) -> Tensor
              device_check: NoCheck
              device_guard: False
              tags: nondeterministic_seeded
            """)
        f = registry.get("bernoulli")
        self.assertEqual((f.device_check, f.device_guard), ("NoCheck", False))
        self.assertEqual(f.tags, ("nondeterministic_seeded",))


class DerivativesTest(SchemaTestCase):
    def test_formula_forms(self):
        f = self.load("""
            - func: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
              derivatives:
                self: value_selecting_reduction_backward(grad, dim, indices, self.sizes(), keepdim)
                values: self_t.gather(dim, indices)
                output_differentiability: [True, False]
            - func: atan2(Tensor self, Tensor other) -> Tensor
              derivatives:
                self, other: atan2_backward(grad, self, other, grad_input_mask)
                result: (self_t * other - other_t * self) / (self * self + other * other)
            - func: floor(Tensor self) -> Tensor
              derivatives:
                self: non_differentiable
                result: not_implemented("floor forward AD")
            - func: atan2_backward(Tensor grad, Tensor self, Tensor other, bool[2] mask) -> (Tensor, Tensor)
            """)
        max_dim = f.get("max.dim").derivatives
        self.assertEqual(max_dim.backward[0].names, ("self",))
        self.assertEqual(max_dim.backward[0].kind, DerivativeKind.formula)
        self.assertEqual(max_dim.forward[0].names, ("values",))
        self.assertEqual(max_dim.output_differentiability, (True, False))
        self.assertEqual(max_dim.backward_for("self").loc.line, 3)
        atan2 = f.get("atan2").derivatives
        self.assertEqual(atan2.backward[0].names, ("self", "other"))
        self.assertIs(atan2.backward_for("other"), atan2.backward[0])
        self.assertEqual(atan2.backward[0].formula,
                         "atan2_backward(grad, self, other, grad_input_mask)")
        floor = f.get("floor").derivatives
        self.assertEqual(floor.backward[0].kind, DerivativeKind.non_differentiable)
        self.assertEqual((floor.forward[0].kind, floor.forward[0].reason),
                         (DerivativeKind.not_implemented, "floor forward AD"))
        self.assertIsNone(floor.output_differentiability)


class ConformanceTest(SchemaTestCase):
    def test_hints(self):
        f = self.load("""
            - func: pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor
              conformance:
                reference: std::pow(self, exponent)
                samples:
                  - {self: [3, 4], exponent: 2}
                  - {self: [], exponent: 0.5}
                domain: {self: positive, exponent: [-2, 2]}
                dtypes: [float32, float64]
                tolerance: {float32: {atol: 1e-5, rtol: 1.0e-4}}
                skip: {gradgradcheck: "slow"}
            - func: cat(Tensor[] tensors, int dim=0) -> Tensor
              conformance:
                samples: [{tensors: [[2, 3], [4, 3]]}, {tensors: [[2]], dim: -1}]
            - func: nll_loss(Tensor self, Tensor target) -> Tensor
              conformance:
                samples: [{self: [6, 5], target: {shape: [6], dtype: int64, domain: [0, 5]}}]
            """)
        hints = f.get("pow.Tensor_Scalar").conformance
        self.assertEqual(hints.reference, "std::pow(self, exponent)")
        first = hints.samples[0].inputs
        self.assertEqual(list(first), ["self", "exponent"])
        self.assertEqual((first["self"].kind, first["self"].shape), ("tensor", (3, 4)))
        self.assertEqual((first["exponent"].kind, first["exponent"].value), ("value", 2))
        self.assertEqual(hints.samples[1].inputs["self"].shape, ())
        self.assertEqual(hints.samples[1].loc.line, 6)
        self.assertEqual(dict(hints.domain), {"self": Domain("positive"),
                                              "exponent": Domain("interval", -2.0, 2.0)})
        self.assertEqual(hints.dtypes, ("float32", "float64"))
        self.assertEqual(dict(hints.tolerance), {"float32": Tolerance(1e-5, 1e-4)})
        self.assertEqual(dict(hints.skip), {"gradgradcheck": "slow"})
        target = f.get("nll_loss").conformance.samples[0].inputs["target"]
        self.assertEqual((target.kind, target.shape, target.dtype, target.domain),
                         ("tensor", (6,), "int64", Domain("interval", 0.0, 5.0)))
        cat = f.get("cat").conformance
        self.assertEqual(cat.samples[0].inputs["tensors"].shapes, ((2, 3), (4, 3)))
        self.assertEqual(cat.samples[1].inputs["dim"].value, -1)
        self.assertIsNone(cat.reference)
        self.assertIsNone(cat.dtypes)


if __name__ == "__main__":
    unittest.main()
