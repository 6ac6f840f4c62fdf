"""Mistakes in `derivatives:` and `conformance:`, each as exactly `file:line: message`."""

import sys
import textwrap
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import SchemaTestCase  # noqa: E402


class DerivativesTest(SchemaTestCase):
    def test_derivative_for_an_argument_that_does_not_exist(self):
        self.assertErrors("""
            - func: mul.Tensor(Tensor self, Tensor other) -> Tensor
              derivatives:
                self: mul_tensor_backward(grad, other, self.scalar_type())
                othr: mul_tensor_backward(grad, self, other.scalar_type())
            - func: mul_tensor_backward(Tensor grad, Tensor other, ScalarType self_type) -> Tensor
            """,
            (4, "derivative for unknown argument 'othr' of 'mul.Tensor'; did you mean 'other'?"))

    def test_unknown_name_in_a_joined_key(self):
        self.assertErrors("""
            - func: atan2(Tensor self, Tensor other) -> Tensor
              derivatives:
                self, othre: atan2_backward(grad, self, other, grad_input_mask)
            """,
            (3, "derivative for unknown argument 'othre' of 'atan2'; did you mean 'other'?"))

    def test_unknown_name_without_a_close_match_lists_the_names(self):
        self.assertErrors("""
            - func: mul.Tensor(Tensor self, Tensor other) -> Tensor
              derivatives:
                weight: grad
            """,
            (3, "derivative for unknown argument 'weight' of 'mul.Tensor'; expected one of: "
                "self, other, result, result0"))

    def test_unknown_output(self):
        self.assertErrors("""
            - func: max.dim(Tensor self, int dim) -> (Tensor values, Tensor indices)
              derivatives:
                result2: values_t
            """,
            (3, "derivative for unknown output 'result2' of 'max.dim', which returns 2 values; "
                "did you mean 'result1'?"))

    def test_derivative_for_a_non_tensor_argument(self):
        self.assertErrors("""
            - func: sum.dim(Tensor self, int dim) -> Tensor
              derivatives:
                dim: grad
            """,
            (3, "derivative for 'dim' of 'sum.dim', which is not a Tensor (int); only Tensor "
                "arguments have gradients"))

    def test_key_mixing_inputs_and_outputs(self):
        self.assertErrors("""
            - func: neg(Tensor self) -> Tensor
              derivatives:
                self, result: -grad
            """,
            (3, "derivative key 'self, result' of 'neg' mixes inputs and outputs"))

    def test_derivative_given_twice(self):
        self.assertErrors("""
            - func: atan2(Tensor self, Tensor other) -> Tensor
              derivatives:
                self, other: atan2_backward(grad, self, other, grad_input_mask)
                other: grad
            - func: atan2_backward(Tensor grad, Tensor self, Tensor other, bool[2] mask) -> (Tensor, Tensor)
            """,
            (4, "derivative for 'other' of 'atan2' given twice (first at line 3)"))

    def test_formula_must_be_a_string(self):
        self.assertErrors("""
            - func: neg(Tensor self) -> Tensor
              derivatives:
                self: 0
            """,
            (3, "derivative formula for 'self' of 'neg' must be a C++ expression, "
                'non_differentiable or not_implemented("reason"), found 0'))

    def test_not_implemented_needs_a_quoted_reason(self):
        self.assertErrors("""
            - func: neg(Tensor self) -> Tensor
              derivatives:
                self: not_implemented(later)
            """,
            (3, "derivative formula for 'self' of 'neg': write "
                'not_implemented("reason"), found \'not_implemented(later)\''))

    def test_output_differentiability_length(self):
        self.assertErrors("""
            - func: max.dim(Tensor self, int dim) -> (Tensor values, Tensor indices)
              derivatives:
                output_differentiability: [True]
            """,
            (3, "'output_differentiability' of 'max.dim' has 1 entries but the overload "
                "returns 2 values"))

    def test_derivatives_must_be_a_mapping(self):
        self.assertErrors("""
            - func: neg(Tensor self) -> Tensor
              derivatives: [self]
            """,
            (2, "'derivatives' of 'neg' must be a mapping, found [self]"))


POW = "- func: pow.Tensor_Scalar(Tensor self, Scalar exponent, *, Tensor(a!) out) -> Tensor(a!)"


def pow_entry(keys):
    """The pow.Tensor_Scalar entry followed by `keys` (indented under it)."""
    return POW + textwrap.indent(textwrap.dedent(keys), "  ")


class ConformanceTest(SchemaTestCase):
    def test_unknown_conformance_key(self):
        self.assertErrors(pow_entry("""
              conformance:
                reference: std::pow(self, exponent)
                sample: [{self: [3], exponent: 2}]
            """),
            (4, "unknown conformance key 'sample' in 'pow.Tensor_Scalar'; "
                "did you mean 'samples'?"))

    def test_unknown_sample_argument(self):
        self.assertErrors(pow_entry("""
              conformance:
                samples:
                  - {self: [3], exponent: 2}
                  - {self: [3], exponant: 2}
            """),
            (5, "conformance sample names unknown argument 'exponant' of 'pow.Tensor_Scalar'; "
                "did you mean 'exponent'?"))

    def test_sample_names_an_out_argument(self):
        self.assertErrors(pow_entry("""
              conformance:
                samples: [{self: [3], exponent: 2, out: [3]}]
            """),
            (3, "conformance sample names out argument 'out' of 'pow.Tensor_Scalar'; the "
                "harness makes out arguments itself"))

    def test_sample_lacks_a_required_argument(self):
        self.assertErrors(pow_entry("""
              conformance:
                samples:
                  - {self: [3]}
            """),
            (4, "conformance sample of 'pow.Tensor_Scalar' lacks required argument "
                "'exponent'"))

    def test_sample_values_must_fit_their_types(self):
        self.assertErrors(pow_entry("""
              conformance:
                samples:
                  - {self: [3, -1], exponent: 2}
                  - {self: [3], exponent: two}
                  - {self: null, exponent: 1}
            """),
            (4, "sample value for 'self' (Tensor) of 'pow.Tensor_Scalar' must be a shape such "
                "as [3, 4], found [3, -1]"),
            (5, "sample value for 'exponent' (Scalar) of 'pow.Tensor_Scalar' does not fit the "
                "type, found 'two'"),
            (6, "sample value for 'self' (Tensor) of 'pow.Tensor_Scalar' cannot be None; the "
                "argument is not optional"))

    def test_tensor_specs_in_samples(self):
        self.assertErrors(pow_entry("""
              conformance:
                samples:
                  - {self: {shape: [3], dtyp: int64}, exponent: 2}
                  - {self: {dtype: int64}, exponent: 2}
                  - {self: {shape: [3], dtype: int64, domain: [0, 2.5]}, exponent: 2}
            """),
            (4, "unknown key 'dtyp' in sample tensor 'self' of 'pow.Tensor_Scalar'; did you mean "
                "'dtype'?"),
            (5, "sample tensor 'self' of 'pow.Tensor_Scalar' needs a shape such as [3, 4], found "
                "nothing"),
            (6, "the domain of sample tensor 'self' of 'pow.Tensor_Scalar' holds integers (int64): "
                "give integer bounds, found [0.0, 2.5]"))

    def test_unknown_dtype(self):
        self.assertErrors(pow_entry("""
              conformance:
                dtypes: [float32, flaot64]
            """),
            (3, "unknown dtype 'flaot64' in conformance of 'pow.Tensor_Scalar'; "
                "did you mean 'float64'?"))

    def test_input_dtypes_and_compare(self):
        self.assertErrors(pow_entry("""
              conformance:
                input_dtypes: {self: bool, exponent: int64, selff: float32}
                compare: valuez
            """),
            (3, "conformance input_dtypes names 'exponent' of 'pow.Tensor_Scalar', which is a Scalar, "
                "not a tensor"),
            (3, "conformance input_dtypes names unknown argument 'selff' of 'pow.Tensor_Scalar'; "
                "did you mean 'self'?"),
            (4, "conformance 'compare' of 'pow.Tensor_Scalar' must be values or metadata, found "
                "'valuez'; did you mean 'values'?"))

    def test_unknown_dtype_in_tolerance_and_tolerance_keys(self):
        self.assertErrors(pow_entry("""
              conformance:
                tolerance:
                  float32: {atol: 1e-5, rtl: 1e-4}
                  float8: {atol: 1}
                  float16: {atol: -1}
            """),
            (4, "unknown tolerance key 'rtl' in 'pow.Tensor_Scalar'; did you mean 'rtol'?"),
            (5, "unknown dtype 'float8' in conformance of 'pow.Tensor_Scalar'; "
                "did you mean 'float64'?"),
            (6, "atol of the tolerance for float16 in 'pow.Tensor_Scalar' is negative"))

    def test_domain(self):
        self.assertErrors(pow_entry("""
              conformance:
                domain:
                  self: postive
                  exponent: [2, -2]
                  base: unit
            """),
            (4, "unknown domain 'postive' for 'self' in 'pow.Tensor_Scalar'; "
                "did you mean 'positive'?"),
            (5, "domain of 'exponent' in 'pow.Tensor_Scalar' is empty: [2, -2] needs "
                "low < high"),
            (6, "conformance domain names unknown argument 'base' of 'pow.Tensor_Scalar'; "
                "expected one of: self, exponent"))

    def test_skip(self):
        self.assertErrors(pow_entry("""
              conformance:
                skip:
                  gradchek: slow
                  forward_ad: ""
            """),
            (4, "unknown conformance check 'gradchek' in 'pow.Tensor_Scalar'; "
                "did you mean 'gradcheck'?"),
            (5, "the reason for skipping 'forward_ad' in 'pow.Tensor_Scalar' must be a "
                "non-empty string, found ''"))

    def test_conformance_must_be_a_mapping(self):
        self.assertErrors(pow_entry("""
              conformance: [reference]
            """),
            (2, "'conformance' of 'pow.Tensor_Scalar' must be a mapping, found [reference]"))


if __name__ == "__main__":
    unittest.main()
