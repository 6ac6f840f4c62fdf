"""Glue that is the same for every operator is a runtime template the generated files name,
not a body generated per operator (issue 18 point 4): the operator handles, the Autograd
kernels that only redispatch, and the wrappers' one-scan device check."""

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import SchemaTestCase  # noqa: E402

from codegen.render import render_all  # noqa: E402

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


class RuntimeTemplatesTest(SchemaTestCase):
    SCHEMA = """
        - func: lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor
          structured_delegate: lerp.Tensor_out
          derivatives:
            self: grad
            end: grad
            weight: grad
            result: auto_linear
        - func: lerp.Tensor_out(Tensor self, Tensor end, Tensor weight, *, Tensor(a!) out) -> Tensor(a!)
          structured: True
          dispatch:
            CPU: lerp_out_cpu
        - func: lerp_.Tensor(Tensor(a!) self, Tensor end, Tensor weight) -> Tensor(a!)
          structured_delegate: lerp.Tensor_out
        - func: arange(Scalar end) -> Tensor
          dispatch:
            CPU: arange_cpu
        """

    def render(self) -> str:
        with tempfile.TemporaryDirectory() as out:
            render_all(self.load(self.SCHEMA), TEMPLATES, out)
            return "\n".join(p.read_text() for p in sorted(Path(out).iterdir()) if p.suffix == ".cpp")

    def test_entry_points_go_through_the_handle_template(self):
        text = self.render()
        self.assertIn("return handle_for<tg::ops::lerp_Tensor>().call(self, end, weight);", text)
        self.assertIn("return handle_for<tg::ops::arange>().redispatch(ks, end);", text)
        self.assertNotIn("findSchemaOrThrow", text)

    def test_kernels_that_only_redispatch_are_registered_not_generated(self):
        text = self.render()
        self.assertIn('m.impl("lerp.Tensor_out", KernelFunction::makeFromUnboxedFunction<'
                      '&OutVariantKernel<ops::lerp_Tensor_out, 0, 1, 2>::call>());', text)
        self.assertIn('m.impl("arange", KernelFunction::makeFromUnboxedFunction<'
                      '&PassthroughKernel<ops::arange>::call>());', text)
        self.assertNotIn("autograd_lerp_Tensor_out(", text)
        self.assertNotIn("autograd_arange(", text)
        self.assertIn("autograd_lerp_Tensor(", text)  # it records a node: generated

    def test_structured_wrappers_scan_devices_once(self):
        text = self.render()
        self.assertIn('const Device device = checked_output_device("lerp.Tensor", '
                      '{ &self, &end, &weight }, 3);', text)
        self.assertIn('const Device device = checked_output_device("lerp.Tensor_out", '
                      '{ &self, &end, &weight, &out }, 3);', text)
        self.assertIn('check_same_device("lerp_.Tensor", { &self, &end, &weight });', text)
        self.assertNotIn("common_device(", text)


if __name__ == "__main__":
    unittest.main()
