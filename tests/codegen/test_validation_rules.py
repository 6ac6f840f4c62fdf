"""Rules across fields and entries (validate.py): each mistake as exactly `file:line: message`."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import SchemaTestCase  # noqa: E402


class DuplicateTest(SchemaTestCase):
    def test_duplicate_overload(self):
        path, errors = self.errors_of("""
            - func: relu(Tensor self) -> Tensor
            - func: add.Tensor(Tensor self, Tensor other) -> Tensor
            - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
            """)
        self.assertEqual(errors, [f"{path}:3: duplicate overload 'add.Tensor' "
                                  f"(first declared at {path}:2)"])

    def test_cpp_name_collision(self):
        self.assertErrors("""
            - func: add.a(Tensor self) -> Tensor
            - func: add_a(Tensor self) -> Tensor
            """,
            (2, "'add_a' and 'add.a' have the same C++ name 'add_a'; rename one overload"))


class StructuredTest(SchemaTestCase):
    def test_delegate_names_no_overload(self):
        self.assertErrors("""
            - func: add.Tensor(Tensor self, Tensor other) -> Tensor
              structured_delegate: add.ot
            - func: add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
              structured: True
              dispatch: {CPU: add_out}
            """,
            (2, "structured_delegate 'add.ot' of 'add.Tensor' names no overload; "
                "did you mean 'add.out'?"))

    def test_delegate_is_not_structured(self):
        self.assertErrors("""
            - func: add.Tensor(Tensor self, Tensor other) -> Tensor
              structured_delegate: add.out
            - func: add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
              dispatch: {CPU: add_out}
            """,
            (2, "structured_delegate 'add.out' of 'add.Tensor' is not structured; add "
                "'structured: True' to 'add.out'"))

    def test_structured_on_a_non_out_overload(self):
        self.assertErrors("""
            - func: add.Tensor(Tensor self, Tensor other) -> Tensor
              structured: True
              dispatch: {CPU: add}
            """,
            (2, "'structured: True' on 'add.Tensor', which is not an out overload; only out "
                "overloads are structured, the others name one with structured_delegate"))

    def test_dispatch_and_structured_delegate(self):
        self.assertErrors("""
            - func: add.Tensor(Tensor self, Tensor other) -> Tensor
              structured_delegate: add.out
              dispatch:
                CPU: add_cpu
            - func: add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
              structured: True
              dispatch: {CPU: add_out}
            """,
            (3, "'add.Tensor' has both 'dispatch' and 'structured_delegate'; its kernels come "
                "from 'add.out', so remove 'dispatch'"))

    def test_out_overload_cannot_delegate(self):
        self.assertErrors("""
            - func: add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
              structured_delegate: sub.out
            - func: sub.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
              structured: True
              dispatch: {CPU: sub_out}
            """,
            (2, "out overload 'add.out' cannot have a structured_delegate; mark it "
                "'structured: True' instead"))

    def test_delegate_with_another_signature(self):
        self.assertErrors("""
            - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
              structured_delegate: add.out
            - func: add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
              structured: True
              dispatch: {CPU: add_out}
            """,
            (2, "'add.Tensor' takes (Tensor self, Tensor other, Scalar alpha=1) but its "
                "structured_delegate 'add.out' takes (Tensor self, Tensor other)"))

    def test_two_functional_overloads_delegate_to_one_out(self):
        self.assertErrors("""
            - func: add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
              structured: True
              dispatch: {CPU: add_out}
            - func: add.Tensor(Tensor self, Tensor other) -> Tensor
              structured_delegate: add.out
            - func: plus(Tensor self, Tensor other) -> Tensor
              structured_delegate: add.out
            """,
            (7, "'plus' and 'add.Tensor' are both functional overloads delegating to "
                "'add.out'"))

    def test_no_follow_on_error_about_a_delegate_with_its_own_mistake(self):
        self.assertErrors("""
            - func: add.Tensor(Tensor self, Tensor other) -> Tensor
              structured_delegate: add.out
            - func: add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
              structured: maybe
              dispatch: {CPU: add_out}
            """,
            (4, "'structured' in 'add.out' must be True or False, found 'maybe'"))


class InplaceAndOutTest(SchemaTestCase):
    def test_inplace_without_a_written_self(self):
        self.assertErrors("""
            - func: add_.Tensor(Tensor self, Tensor other) -> Tensor(a!)
            """,
            (1, "in-place overload 'add_.Tensor' must take 'Tensor(a!) self', "
                "found 'Tensor self'"))

    def test_inplace_without_self(self):
        self.assertErrors("""
            - func: add_.Tensor(Tensor(a!) input, Tensor other) -> Tensor(a!)
            """,
            (1, "in-place overload 'add_.Tensor' must take 'Tensor(a!) self', "
                "found no 'self' argument"))

    def test_inplace_return_does_not_alias_self(self):
        self.assertErrors("""
            - func: add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor
            """,
            (1, "in-place overload 'add_.Tensor' must return 'Tensor(a!)' (self), "
                "found 'Tensor'"))

    def test_out_argument_without_annotation(self):
        self.assertErrors("""
            - func: add.out(Tensor self, Tensor other, *, Tensor out) -> Tensor
            """,
            (1, "out argument 'out' of 'add.out' must be annotated 'Tensor(a!)', "
                "found 'Tensor'"))

    def test_one_of_several_out_arguments_without_annotation(self):
        self.assertErrors("""
            - func: max.dim_max(Tensor self, int dim, *, Tensor(a!) max, Tensor max_values) -> (Tensor(a!) values, Tensor indices)
            """,
            (1, "out argument 'max_values' of 'max.dim_max' must be annotated 'Tensor(a!)', "
                "found 'Tensor'"))

    def test_out_overload_without_out_argument(self):
        self.assertErrors("""
            - func: add.out(Tensor self, Tensor other) -> Tensor
            """,
            (1, "out overload 'add.out' has no keyword-only out argument such as "
                "'*, Tensor(a!) out'"))

    def test_out_return_does_not_alias(self):
        self.assertErrors("""
            - func: add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor
            """,
            (1, "out overload 'add.out' must return 'Tensor(a!)' (aliasing 'out'), "
                "found 'Tensor'"))

    def test_out_returns_must_match_every_out_argument(self):
        self.assertErrors("""
            - func: max.dim_max(Tensor self, int dim, *, Tensor(a!) max, Tensor(b!) max_values) -> Tensor(a!)
            """,
            (1, "out overload 'max.dim_max' must return '(Tensor(a!), Tensor(b!))' "
                "(aliasing 'max', 'max_values'), found 'Tensor(a!)'"))

    def test_out_arguments_share_an_alias_set(self):
        self.assertErrors("""
            - func: max.dim_max(Tensor self, int dim, *, Tensor(a!) max, Tensor(a!) max_values) -> (Tensor(a!) values, Tensor(a!) indices)
            """,
            (1, "out arguments 'max' and 'max_values' of 'max.dim_max' share alias set 'a'"))

    def test_out_arguments_come_after_every_tensor_input(self):
        self.assertErrors("""
            - func: nll.out(Tensor self, *, Tensor(a!) out, Tensor? weight=None) -> Tensor(a!)
            """,
            (1, "tensor argument 'weight' of 'nll.out' comes after the out argument 'out': "
                "put every out argument last"))

    def test_list_outputs_may_return_nothing(self):
        registry = self.load("""
            - func: _foreach_add.List_out(Tensor[] self, Tensor[] other, *, Tensor(a!)[] out) -> ()
            - func: _foreach_add_.List(Tensor(a!)[] self, Tensor[] other) -> ()
            """)
        self.assertEqual(registry.get("_foreach_add.List_out").kind, "out")

    def test_return_aliases_no_argument(self):
        self.assertErrors("""
            - func: view(Tensor self, int[] size) -> Tensor(a)
            """,
            (1, "return 'Tensor(a)' of 'view' aliases no argument (none is annotated '(a)')"))


class EntryRuleTest(SchemaTestCase):
    def test_composite_implicit_with_other_keys(self):
        self.assertErrors("""
            - func: linear(Tensor input, Tensor weight) -> Tensor
              dispatch:
                CompositeImplicitAutograd: linear
                CUDA: linear_cuda
            """,
            (2, "'linear' combines CompositeImplicitAutograd with other dispatch keys; a "
                "decomposition serves every backend"))

    def test_method_variant_needs_self(self):
        self.assertErrors("""
            - func: cat(Tensor[] tensors, int dim=0) -> Tensor
              variants: function, method
            """,
            (2, "'cat' has a method variant but no 'Tensor self' argument"))

    def test_argument_rules(self):
        self.assertErrors("""
            - func: f(Tensor self, int default, int dim=None, bool[] mask, Tensor self) -> Tensor?
            """,
            (1, "argument 'default' of 'f' is a C++ keyword; rename it"),
            (1, "default 'None' of argument 'dim' of 'f' does not fit 'int': None needs an "
                "optional type ('int?')"),
            (1, "argument 'mask' of 'f': type 'bool[]' has no C++ argument type"),
            (1, "argument 'self' of 'f' appears twice"),
            (1, "return 0 of 'f': type 'Tensor?' cannot be returned"))


if __name__ == "__main__":
    unittest.main()
