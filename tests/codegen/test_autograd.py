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

    def test_kernels_that_only_redispatch_are_runtime_template_instances(self):
        kernels = self.kernels("""
            - func: index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out) -> Tensor(a!)
              dispatch:
                CPU: index_select_out
            - func: ones(int[] size) -> Tensor
              dispatch:
                CPU: ones
            - func: relu(Tensor self) -> Tensor
              dispatch:
                CPU: relu
              derivatives:
                self: grad
                result: auto_linear
            """)
        out, factory, relu = kernels["index_select.out"], kernels["ones"], kernels["relu"]
        # The positions are those of the differentiable inputs among the C++ arguments.
        self.assertEqual(out.kernel, "OutVariantKernel<ops::index_select_out, 0, 2>::call")
        self.assertEqual(factory.kernel, "PassthroughKernel<ops::ones>::call")
        self.assertFalse(out.is_generated or factory.is_generated)
        self.assertTrue(relu.is_generated)
        self.assertEqual(relu.kernel, "autograd_relu")

    def test_tensor_list_input_saves_its_length_and_what_the_formula_reads(self):
        kernel = self.kernels("""
            - func: cat(Tensor[] tensors, int dim=0) -> Tensor
              dispatch:
                CPU: cat_cpu
              derivatives:
                tensors: cat_tensors_backward(grad, to_args_sizes(tensors), to_args_scalartypes(tensors), dim)
                result: auto_linear
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
                result: auto_linear
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
                result: auto_linear
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
                forward: not_implemented("a test fixture")
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

    def test_a_member_is_saved_only_when_a_formula_reading_it_runs(self):
        # Note [Save only what is needed]: `other` serves self's gradient (slot 0) only,
        # `self` other's (slot 1), `alpha` both; `result` is read by every slot's formula.
        kernels = self.kernels("""
            - func: mul_add(Tensor self, Tensor other, Scalar alpha) -> Tensor
              dispatch:
                CPU: mul_add_cpu
              derivatives:
                self: grad * other * alpha
                other: grad * self * alpha + result * 0
                result: auto_element_wise
            - func: scaled_backward(Tensor grad, Tensor result, bool[2] mask) -> (Tensor, Tensor)
              dispatch:
                CompositeExplicitAutograd: scaled_backward
            - func: scaled(Tensor self, Tensor other) -> Tensor
              dispatch:
                CPU: scaled_cpu
              derivatives:
                self, other: scaled_backward(grad, result, grad_input_mask)
                result: self_t * other + other_t * self
            """)
        saved = {s.member: s for s in kernels["mul_add"].node.saved}
        self.assertEqual(saved["other_"].needed_by, (0,))
        self.assertEqual(saved["other_"].save_condition, "grad_fn->should_compute_output(0)")
        self.assertEqual(saved["self_"].needed_by, (1,))
        self.assertEqual(saved["alpha_"].needed_by, ())
        self.assertEqual(saved["result_"].needed_by, (1,))
        # One formula for both inputs: whatever it reads serves every slot, so it is always saved.
        self.assertEqual([s.needed_by for s in kernels["scaled"].node.saved], [()])


class ForwardRuleTest(SchemaTestCase):
    """Tangent rules (codegen/forward_ad.py) and their validation (parse_derivatives.py)."""

    def kernels(self, text):
        return {k.op.f.full_name: k for k in autograd.autograd_kernels(self.load(text))}

    def test_auto_element_wise_reads_each_backward_formula_with_the_tangent_as_grad(self):
        rule = self.kernels("""
            - func: mul.Tensor(Tensor self, Tensor other) -> Tensor
              dispatch:
                CPU: mul_cpu
              derivatives:
                self: grad * other
                other: grad * self
                result: auto_element_wise
            """)["mul.Tensor"].forward
        self.assertEqual([o.expression for o in rule.outputs], ["(self_t * other) + (other_t * self)"])
        self.assertEqual([t.local for t in rule.inputs], ["self_t", "other_t"])

    def test_auto_linear_calls_the_operator_on_the_tangents(self):
        rule = self.kernels("""
            - func: sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False) -> Tensor
              dispatch:
                CPU: sum_cpu
              derivatives:
                self: sum_backward(grad, self.sizes(), dim, keepdim)
                result: auto_linear
            """)["sum.dim_IntList"].forward
        self.assertEqual(rule.outputs[0].expression, "ops::sum_dim_IntList::call(self_t, dim, keepdim)")

    def test_in_place_formula_reads_self_from_before_the_write(self):
        kernels = self.kernels("""
            - func: exp(Tensor self) -> Tensor
              structured_delegate: exp.out
              derivatives:
                self: grad * result
                result: self_t * result + 0 * self_p
            - func: exp_(Tensor(a!) self) -> Tensor(a!)
              structured_delegate: exp.out
            - func: exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
              structured: True
              dispatch:
                CPU: exp_out
            """)
        rule = kernels["exp_"].forward
        self.assertEqual(rule.outputs[0].target, "self")
        self.assertEqual(rule.outputs[0].expression, "self_t * self + 0 * self_before")
        self.assertTrue(rule.reads_primal_before)

    def test_a_backward_formula_without_a_forward_rule_is_an_error(self):
        self.assertErrors("""
            - func: neg(Tensor self) -> Tensor
              dispatch:
                CPU: neg_cpu
              derivatives:
                self: -grad
            """,
            (4, "'neg' has a backward formula but no forward-mode rule for 'result': add "
                "'result: <formula>', 'result: auto_element_wise' or 'result: auto_linear', or "
                "'forward: not_implemented(\"reason\")'"))

    def test_forward_only_rules_are_refused_as_backward_formulas(self):
        self.assertErrors("""
            - func: neg(Tensor self) -> Tensor
              dispatch:
                CPU: neg_cpu
              derivatives:
                self: auto_linear
            """,
            (5, "'auto_linear' of 'neg' is a forward-mode rule: write it as 'result: auto_linear'"))

    def test_forward_not_implemented_is_counted_and_unknown_batching_rules_are_errors(self):
        f = self.load("""
            - func: neg(Tensor self) -> Tensor
              dispatch:
                CPU: neg_cpu
              derivatives:
                self: -grad
                forward: not_implemented("no reason")
            """)
        self.assertEqual(f.get("neg").derivatives.forward_not_implemented, "no reason")
        self.assertErrors("""
            - func: neg(Tensor self) -> Tensor
              batching: pointwize
              dispatch:
                CPU: neg_cpu
            """,
            (2, "unknown batching rule 'pointwize' in 'neg'; expected one of pointwise, dims, cat, "
                "loss, mm, bmm, addmm, conv, conv_backward, embedding, embedding_backward, layer_norm, "
                "nll_loss, index_select, index_add, masked_fill, index, index_put, squeeze_all, copy, fallback, "
                "reduce_all(<overload>) or fold(<rank>); did you mean 'pointwise'?"))
        # fold(<rank>) declares the N-folding rule with the rank of an input that has N.
        f = self.load("""
            - func: neg(Tensor self) -> Tensor
              batching: fold(4)
              dispatch:
                CPU: neg_cpu
            """)
        self.assertEqual(f.get("neg").batching, "fold(4)")
        self.assertErrors("""
            - func: neg(Tensor self) -> Tensor
              batching: fold(0)
              dispatch:
                CPU: neg_cpu
            """,
            (2, "unknown batching rule 'fold(0)' in 'neg'; expected one of pointwise, dims, cat, "
                "loss, mm, bmm, addmm, conv, conv_backward, embedding, embedding_backward, layer_norm, "
                "nll_loss, index_select, index_add, masked_fill, index, index_put, squeeze_all, copy, fallback, "
                "reduce_all(<overload>) or fold(<rank>)"))


if __name__ == "__main__":
    unittest.main()
