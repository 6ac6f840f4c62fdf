"""Issue 13, case 6: the generator parses every derivative formula and conformance reference
as an expression and checks its names (codegen/formula_expr.py, codegen/check_formulas.py),
and refuses, at file:line, schema mistakes that used to pass or end in a traceback."""

from __future__ import annotations

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "codegen"))

from support import REPO_ROOT, SchemaTestCase, run_main  # noqa: E402

from codegen.check_formulas import FORMULAS_HEADER, declared_helpers  # noqa: E402
from codegen.errors import Location, SchemaError  # noqa: E402
from codegen.formula_expr import (MAX_DEPTH, AllowedNames, Call, Member, Name,  # noqa: E402
                                  check_formula, names_in, parse_formula)
from codegen.registry import load_registry  # noqa: E402

HERE = Location("f.yaml", 7)


def entry(derivative: str = "", reference: str = "", func: str = "foo(Tensor self, Scalar alpha) -> Tensor"):
    text = f"- func: {func}\n  dispatch:\n    CPU: foo_cpu\n"
    if derivative:
        # The tangent rule every entry with a backward formula needs (docs/transforms.md).
        text += f"  derivatives:\n    self: {derivative}\n    result: auto_element_wise\n"
    if reference:
        text += f"  conformance:\n    reference: {reference}\n"
    return text


class FormulaGrammarTest(unittest.TestCase):
    def test_parses_the_forms_formulas_use(self):
        tree = parse_formula("embedding_backward(grad, indices, weight.sizes()[0], -1, true)", HERE)
        self.assertIsInstance(tree, Call)
        self.assertEqual(names_in(tree), {"embedding_backward", "grad", "indices", "weight"})
        tree = parse_formula('approximate == "tanh" ? 0.5 * self : std::erf(self * 1e-3)', HERE)
        self.assertEqual(names_in(tree), {"approximate", "self", "std::erf"})
        self.assertIsInstance(parse_formula("grad.masked_fill(mask, 0)", HERE).function, Member)

    def test_refuses_statements_and_broken_expressions(self):
        for text, part in [("grad; std::system(\"x\")", "unexpected character ';'"),
                           ("grad * (x", "expected ')'"),
                           ("x = grad", "unexpected character '='"),
                           ("[&] { return grad; }()", "unexpected character '&'"),
                           ("grad grad", "exactly one expression"),
                           ("", "empty"),
                           ("grad.", "member name")]:
            with self.subTest(text=text):
                with self.assertRaises(SchemaError) as caught:
                    parse_formula(text, HERE)
                self.assertIn(part, str(caught.exception))
                self.assertTrue(str(caught.exception).startswith("f.yaml:7: "))

    def test_deep_nesting_is_an_error_not_a_recursion_error(self):
        for text in ["(" * 400 + "grad" + ")" * 400, "-" * 5000 + "grad", "f(" * 400 + ")" * 400]:
            with self.assertRaises(SchemaError) as caught:
                parse_formula(text, HERE)
            self.assertIn(f"nested more than {MAX_DEPTH} levels", str(caught.exception))

    def test_check_formula_checks_values_and_functions_apart(self):
        allowed = AllowedNames(frozenset({"grad", "self"}), frozenset({"sum_to"}))
        check_formula("sum_to(grad, self.sizes())", allowed, HERE)
        with self.assertRaisesRegex(SchemaError, "reads 'sum_to'"):
            check_formula("grad + sum_to", allowed, HERE)
        with self.assertRaisesRegex(SchemaError, "calls 'grad'"):
            check_formula("grad(self)", allowed, HERE)
        with self.assertRaisesRegex(SchemaError, "calls 'std::system'"):
            check_formula('std::system("rm")', allowed, HERE)
        with self.assertRaisesRegex(SchemaError, "only a named function"):
            check_formula("grad.sizes()[0](self)", allowed, HERE)
        self.assertIsInstance(check_formula("self", allowed, HERE), Name)

    def test_helpers_come_from_the_formulas_header(self):
        helpers = declared_helpers()
        self.assertIn("sum_backward", helpers)
        self.assertIn("sum_to", helpers)
        # Node support declared before the formulas marker is not for formulas.
        self.assertNotIn("materialize_undefined_grads", helpers)
        self.assertIn("materialize_undefined_grads", FORMULAS_HEADER.read_text())

    def test_every_schema_in_the_repository_passes(self):
        load_registry([str(REPO_ROOT / "schemas")])


class FormulaSchemaTest(SchemaTestCase):
    def assertRefused(self, text: str, line: int, part: str) -> None:
        path, errors = self.errors_of(text)
        self.assertTrue(any(e.startswith(f"{path}:{line}: ") and part in e for e in errors), errors)

    def test_a_statement_in_a_derivative_is_refused(self):
        self.assertRefused(entry('grad; std::system("touch /tmp/x")'), 5, "unexpected character ';'")

    def test_unknown_names_in_a_derivative_are_refused(self):
        self.assertRefused(entry("grad * (nonexistent_arg"), 5, "expected ')'")
        self.assertRefused(entry("grad * nonexistent_arg"), 5, "reads 'nonexistent_arg'")
        self.assertRefused(entry("system(grad)"), 5, "calls 'system'")

    def test_valid_derivatives_pass(self):
        self.load(entry("maybe_multiply(grad, alpha) * self.sizes()[0]"))
        self.load(entry("sum_to(grad, self.sizes())"))

    def test_references_are_checked(self):
        self.assertRefused(entry(reference='std::system("x") + self'), 5, "calls 'std::system'")
        self.assertRefused(entry(reference="self + other"), 5, "reads 'other'")
        self.assertRefused(entry(reference="self; abort()"), 5, "unexpected character ';'")
        self.load(entry(reference="std::exp(self) * alpha"))


def forward_entry(tangent: str, other: str = "grad") -> str:
    """An entry whose tangent rule (`result:`, line 7) is `tangent`; `other` is other's backward."""
    return ("- func: foo(Tensor self, Tensor other, Scalar alpha) -> Tensor\n  dispatch:\n    CPU: foo_cpu\n"
            f"  derivatives:\n    self: grad\n    other: {other}\n    result: {tangent}\n")


class ForwardFormulaTest(SchemaTestCase):
    """Forward-mode (`result:`) formulas go through the same checks, with their own names
    (codegen/check_formulas.forward_names)."""

    def assertRefused(self, text: str, line: int, part: str) -> None:
        path, errors = self.errors_of(text)
        self.assertTrue(any(e.startswith(f"{path}:{line}: ") and part in e for e in errors), errors)

    def test_unknown_names_are_refused_at_their_line(self):
        self.assertRefused(forward_entry("self_t * nonexistent_arg"), 7,
                           "forward-mode formula for 'result' of 'foo' reads 'nonexistent_arg'")
        self.assertRefused(forward_entry("self_t * (other_t"), 7, "expected ')'")
        self.assertRefused(forward_entry('self_t; std::system("x")'), 7, "unexpected character ';'")
        self.assertRefused(forward_entry("no_such_jvp(self_t)"), 7, "calls 'no_such_jvp'")
        # grad belongs to backward formulas; a tangent exists only for a differentiable input.
        self.assertRefused(forward_entry("grad * self_t"), 7, "reads 'grad'")
        self.assertRefused(forward_entry("self_t + other_t", other="non_differentiable"), 7,
                           "reads 'other_t'")
        self.assertRefused(forward_entry("self_t * alpha_t"), 7, "reads 'alpha_t'")

    def test_the_names_schemas_readme_documents_pass(self):
        self.load(forward_entry("self_t * other_p + other_t * self + alpha * result"))
        self.load(forward_entry("std::get<0>(foo(self_t, other, alpha)) + result0"))
        # The jvp helpers of runtime/autograd/forward_formulas.h, and std::nullopt.
        self.load(forward_entry("sum_over(self_t, std::nullopt, false) + mse_loss_jvp(self, self_t, other, "
                                "other_t, 1)"))

    def test_a_template_call_needs_a_qualified_name(self):
        tree = parse_formula("std::get<1>(f(x))", HERE)
        self.assertIsInstance(tree, Call)
        self.assertEqual(tree.function, Name("std::get"))
        self.assertNotIsInstance(parse_formula("a < 0 > (b)", HERE), Call)


class SchemaShapeTest(SchemaTestCase):
    def test_empty_variants(self):
        self.assertErrors("- func: foo(Tensor self) -> Tensor\n  variants: []\n  dispatch:\n    CPU: foo_cpu\n",
                          (2, "'variants: []' in 'foo' leaves the operator without any C++ function; list "
                              "at least one of: function, method, or leave 'variants' out for the default "
                              "(function)"))

    def test_two_returns_without_parentheses(self):
        self.assertErrors("- func: foo(Tensor self) -> Tensor Tensor\n  dispatch:\n    CPU: foo_cpu\n",
                          (1, "return 0 of 'foo' is named 'Tensor', which is a type; to return several "
                              "values write '-> (Tensor, Tensor)'"))

    def test_duplicate_return_names(self):
        self.assertErrors("- func: foo(Tensor self) -> (Tensor a, Tensor a)\n  dispatch:\n    CPU: foo_cpu\n",
                          (1, "return name 'a' of 'foo' is used by returns 0 and 1; give each return its "
                              "own name"))

    def test_autogen_is_refused(self):
        # Issue 18: nothing derives autogen variants, so the key is unknown (not silently kept).
        path, errors = self.errors_of("- func: foo(Tensor self) -> Tensor\n  autogen: foo.out\n  dispatch:\n    CPU: foo_cpu\n")
        self.assertEqual(len(errors), 1)
        self.assertTrue(errors[0].startswith(f"{path}:2: unknown key 'autogen' in 'foo'"), errors)

    def test_reserved_operator_names(self):
        path, errors = self.errors_of("- func: __(Tensor self) -> Tensor\n  dispatch:\n    CPU: foo_cpu\n")
        self.assertTrue(any(e.startswith(f"{path}:1: operator name '__'") for e in errors), errors)

    def test_deep_nesting_reports_a_line_not_a_traceback(self):
        for depth in (400, 5000):
            path = self.write_yaml("- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CPU: "
                                   + "[" * depth + "]" * depth + "\n", f"deep{depth}.yaml")
            result = run_main(["--check", "--schemas", path])
            self.assertEqual(result.returncode, 1)
            self.assertNotIn("Traceback", result.stderr)
            self.assertIn(f"{path}:3: values nested too deeply", result.stderr)

    def test_non_utf8_reports_its_line(self):
        path = self.folder / "latin1.yaml"
        path.write_bytes(b"- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CPU: caf\xe9\n")
        result = run_main(["--check", "--schemas", str(path)])
        self.assertEqual(result.returncode, 1)
        self.assertIn(f"{path}:3: schema file is not UTF-8", result.stderr)
        self.assertIn("column 13", result.stderr)


if __name__ == "__main__":
    unittest.main()
