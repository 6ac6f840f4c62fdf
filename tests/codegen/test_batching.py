"""Which vmap batching rule each operator gets (codegen/batching.py): a declared family rule
(`batching: fold(4)`, `batching: conv`) or one inferred from the schema, with no per-operator
code; and the generated registration declares fold's rank."""

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import SchemaTestCase  # noqa: E402

from codegen import batching  # noqa: E402
from codegen.render import render_all  # noqa: E402

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


class BatchingRuleTest(SchemaTestCase):
    SCHEMA = """
        - func: upsample_like(Tensor self, int[2] output_size) -> Tensor
          batching: fold(4)
          dispatch:
            CPU: upsample_like_cpu
        - func: my_conv(Tensor input, Tensor weight) -> Tensor
          batching: conv
          dispatch:
            CPU: my_conv_cpu
        - func: neg(Tensor self) -> Tensor
          tags: pointwise
          dispatch:
            CPU: neg_cpu
        - func: flip_like(Tensor self, int[] dims) -> Tensor
          dispatch:
            CPU: flip_like_cpu
        - func: strange(Tensor self, int knob) -> Tensor
          dispatch:
            CPU: strange_cpu
        - func: composite(Tensor self) -> Tensor
          dispatch:
            CompositeImplicitAutograd: composite
        """

    def test_rules_come_from_declarations_or_the_schema(self):
        rules = {r.op: r for r in batching.batching_rules(self.load(self.SCHEMA))}
        self.assertEqual((rules["upsample_like"].rule, rules["upsample_like"].via), ("fold", "4"))
        self.assertEqual(rules["my_conv"].rule, "conv")
        self.assertEqual(rules["neg"].rule, "pointwise")
        self.assertEqual(rules["flip_like"].rule, "dims")
        # An argument of unknown meaning: no rule, the counted loop fallback.
        self.assertNotIn("strange", rules)
        # A decomposition is batched through its parts.
        self.assertNotIn("composite", rules)

    def test_the_registration_declares_fold_ranks(self):
        with tempfile.TemporaryDirectory() as out:
            render_all(self.load(self.SCHEMA), TEMPLATES, out)
            text = (Path(out) / "RegisterBatched.cpp").read_text()
        self.assertIn('m.impl("upsample_like", KernelFunction::makeFromBoxedFunction('
                      '&batch_entry<&batch_rule_fold>));', text)
        self.assertIn('declare_fold("upsample_like", 4);', text)
        self.assertIn('&batch_entry<&batch_rule_conv>', text)
        self.assertNotIn('"strange"', text)


if __name__ == "__main__":
    unittest.main()
