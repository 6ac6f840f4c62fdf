"""The conformance plan codegen/conformance.py derives from the real schemas: samples, error
samples, siblings, inherited hints and the checks that apply."""

import sys
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from codegen import autograd, conformance  # noqa: E402
from codegen.registry import load_registry  # noqa: E402


class PlanTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        registry = load_registry([str(REPO / "schemas")])
        kernels = autograd.autograd_kernels(registry)
        cls.plans = {p.name: p for p in conformance.plans(registry, {k.op.f.full_name for k in kernels})}

    def status(self, op, check):
        return next((c.status, c.reason) for c in self.plans[op].checks if c.name == check)

    def test_reduction_samples_cover_negative_and_several_dims_and_keepdim(self):
        samples = [", ".join(s) for s in self.plans["sum.dim_IntList"].samples]
        self.assertTrue(any("std::vector<int64_t>{-1}" in s for s in samples), samples)
        self.assertTrue(any("std::vector<int64_t>{0, 1}" in s for s in samples), samples)
        self.assertTrue(any("IValue(true)" in s for s in samples), samples)

    def test_error_samples_for_dims_shapes_and_sizes(self):
        whats = [what for what, _ in self.plans["sum.dim_IntList"].error_samples]
        self.assertIn("dim 5 out of range for a 2-d input", whats)
        self.assertIn("dim -6 out of range for a 2-d input", whats)
        self.assertEqual([w for w, _ in self.plans["add.Tensor"].error_samples], ["shapes that do not fit together"])
        self.assertEqual([w for w, _ in self.plans["zeros"].error_samples], ["a negative size in size"])

    def test_functional_overload_calls_its_siblings(self):
        plan = self.plans["add.Tensor"]
        self.assertEqual(plan.inplace[1], "add_.Tensor")
        self.assertEqual(plan.out[1], "add.out")
        self.assertEqual(self.plans["add.out"].functional[1], "add.Tensor")
        self.assertEqual(self.plans["add.out"].out_count, 1)

    def test_inplace_and_out_inherit_the_functional_hints(self):
        self.assertEqual(self.plans["log_"].args[0].domain, "Domain{Domain::Positive}")
        self.assertEqual(self.plans["where.self_out"].args[0].pinned, "kBool")

    def test_checks_that_apply_and_written_reasons(self):
        self.assertEqual(self.status("exp", "reference")[0], conformance.RUN)
        self.assertEqual(self.status("exp.out", "gradcheck"),
                         (conformance.NOT_APPLICABLE, "out= overloads do not support autograd"))
        self.assertEqual(self.status("exp.out", "out")[0], conformance.RUN)
        self.assertEqual(self.status("view", "noncontiguous")[0], conformance.SKIP)
        self.assertIn("reshape copies instead", self.status("view", "noncontiguous")[1])
        self.assertEqual(self.status("argmax", "gradcheck")[0], conformance.NOT_APPLICABLE)


if __name__ == "__main__":
    unittest.main()
