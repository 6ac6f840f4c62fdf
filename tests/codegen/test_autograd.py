"""What codegen/autograd.py makes of `derivatives:` blocks: the saved members and formula
slots of backward nodes, Tensor[] inputs, and the mistakes it reports."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import SchemaTestCase  # noqa: E402

from codegen import autograd, cpp_types  # noqa: E402
from codegen.errors import SchemaErrors  # noqa: E402
from codegen.registry import load_registry  # noqa: E402


class AutogradTest(SchemaTestCase):
    def kernels(self, text):
        return {k.op.f.full_name: k for k in autograd.autograd_kernels(self.load(text))}

    def test_tensor_list_input_saves_its_length_and_what_the_formula_reads(self):
        kernel = self.kernels("""
            - func: cat(Tensor[] tensors, int dim=0) -> Tensor
              dispatch:
                CPU: cat_cpu
              derivatives:
                tensors: cat_tensors_backward(grad, to_args_sizes(tensors), to_args_scalartypes(tensors), dim)
            """)["cat"]
        node = kernel.node
        self.assertTrue(node.has_list_inputs)
        self.assertEqual([(i.name, i.is_list) for i in node.inputs], [("tensors", True)])
        saved = {s.member: (s.cpp_type, s.init) for s in node.saved}
        self.assertEqual(saved["tensors_size_"], ("size_t", "tensors.size()"))
        self.assertEqual(saved["tensors_to_args_sizes_"],
                         ("std::vector<std::vector<int64_t>>", "to_args_sizes(tensors)"))
        self.assertEqual(saved["dim_"], ("int64_t", "dim"))
        self.assertEqual(node.formulas[0].inputs, ("tensors",))
        self.assertEqual(node.formulas[0].expression,
                         "cat_tensors_backward(grads[0], tensors_to_args_sizes_, "
                         "tensors_to_args_scalartypes_, dim_)")

    def test_reading_a_tensor_list_whole_is_an_error(self):
        path = self.write_yaml("""
            - func: stack(Tensor[] tensors, int dim=0) -> Tensor
              dispatch:
                CompositeExplicitAutograd: stack
              derivatives:
                tensors: stack_tensors_backward(grad, dim, tensors)
            """)
        with self.assertRaises(SchemaErrors) as caught:
            autograd.autograd_kernels(load_registry([path]))
        self.assertEqual([str(e) for e in caught.exception.errors],
                         [f"{path}:4: 'stack': a formula reads the Tensor[] 'tensors' whole; read "
                          "to_args_sizes(tensors) or to_args_scalartypes(tensors)"])

    def test_tensor_list_shares_no_formula(self):
        path = self.write_yaml("""
            - func: addcat(Tensor self, Tensor[] tensors) -> Tensor
              dispatch:
                CompositeExplicitAutograd: addcat
              derivatives:
                self, tensors: maybe_multiply(grad, 1)
            """)
        with self.assertRaises(SchemaErrors) as caught:
            autograd.autograd_kernels(load_registry([path]))
        self.assertEqual([str(e) for e in caught.exception.errors],
                         [f"{path}:5: 'addcat': the Tensor[] input 'tensors' needs a formula of its own, "
                          "returning one gradient per element"])

    def test_grad_input_mask_belongs_to_the_formula(self):
        # A formula calls only operators and declared helpers (codegen/check_formulas.py).
        node = self.kernels("""
            - func: norm_layer_backward(Tensor grad, Tensor input, Tensor? weight, bool[2] mask) -> Tensor[]
              dispatch:
                CompositeExplicitAutograd: norm_layer_backward
            - func: norm_layer(Tensor input, Tensor? weight, Tensor? bias, Tensor mean) -> Tensor
              dispatch:
                CompositeExplicitAutograd: norm_layer
              derivatives:
                input, weight: norm_layer_backward(grad, input, weight, grad_input_mask)
                bias: grad
                mean: not_implemented("a statistic")
            """)["norm_layer"].node
        formulas = {f.inputs: f for f in node.formulas}
        self.assertTrue(formulas[("input", "weight")].uses_grad_input_mask)
        self.assertFalse(formulas[("bias",)].uses_grad_input_mask)
        saved = {s.member: s.init for s in node.saved}
        # An optional tensor unpacks as an undefined tensor when it was None.
        self.assertEqual(saved["weight_"], "SavedVariable(weight.value_or(Tensor()), false)")

    def test_loss_defaults_and_namespace_names(self):
        f = self.load("""
            - func: l1_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor
            - func: std(Tensor self, bool unbiased=True) -> Tensor
            """)
        self.assertEqual(cpp_types.arguments(f.get("l1_loss").func)[2].default, "Reduction::Mean")
        self.assertEqual(cpp_types.overload_cpp_name(f.get("std").func), "std_op")


if __name__ == "__main__":
    unittest.main()
