"""Mistakes in the file or in one entry's keys: each reported as exactly `file:line: message`."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import SchemaTestCase, load_registry  # noqa: E402

from codegen.errors import SchemaErrors  # noqa: E402

ENTRY_KEYS = ("func, variants, dispatch, structured, structured_delegate, tags, device_check, "
              "device_guard, derivatives, conformance, batching, kernel, "
              "scalar_overload_of")


class FileTest(SchemaTestCase):
    def test_yaml_syntax_error(self):
        self.assertErrors("""
            - func: relu(Tensor self) -> Tensor
              dispatch: {CPU: relu
            - func: gelu(Tensor self) -> Tensor
            """,
            (3, "invalid YAML: expected ',' or '}', but got ':' (column 7)"))

    def test_yaml_error_in_an_indented_block(self):
        self.assertErrors("""
            - func: relu(Tensor self) -> Tensor
              variants: function
               tags: pointwise
            """,
            (3, "invalid YAML: mapping values are not allowed here (column 8)"))

    def test_unprintable_character(self):
        self.assertErrors("- func: relu(Tensor self) -> Tensor\n  tags: pointwise\x01\n",
                          (2, "invalid YAML: unacceptable character U+0001"))

    def test_one_document_per_file(self):
        self.assertErrors("""
            - func: relu(Tensor self) -> Tensor
            ---
            - func: gelu(Tensor self) -> Tensor
            """,
            (2, "invalid YAML: expected a single document in the stream, but found another "
                "document (column 1)"))

    def test_top_level_must_be_a_list(self):
        self.assertErrors("""
            func: relu(Tensor self) -> Tensor
            """,
            (1, "top level must be a list of operator entries, found a mapping"))

    def test_entry_must_be_a_mapping(self):
        self.assertErrors("""
            - func: relu(Tensor self) -> Tensor
            - relu(Tensor self) -> Tensor
            """,
            (2, "entry must be a mapping with a 'func' key, found 'relu(Tensor self) -> Tensor'"))

    def test_entry_needs_func(self):
        self.assertErrors("""
            - func: relu(Tensor self) -> Tensor
            - variants: function
              tags: pointwise
            """,
            (2, "entry has no 'func' key"))

    def test_func_must_be_a_string(self):
        self.assertErrors("""
            - func: [relu]
            """,
            (1, "'func' must be a schema string, found [relu]"))

    def test_duplicate_yaml_key(self):
        self.assertErrors("""
            - func: relu(Tensor self) -> Tensor
              tags: pointwise
              tags: pointwise
            """,
            (3, "duplicate key 'tags' (first at line 2)"))

    def test_empty_file_declares_nothing(self):
        self.assertEqual(len(self.load("")), 0)

    def test_unreadable_file(self):
        missing = str(self.folder / "missing.yaml")
        with self.assertRaises(SchemaErrors) as caught:
            load_registry([missing])
        self.assertEqual([str(e) for e in caught.exception.errors],
                         [f"{missing}: cannot read schema file: No such file or directory"])


class EntryKeyTest(SchemaTestCase):
    def test_unknown_key_with_suggestion(self):
        self.assertErrors("""
            - func: add.Tensor(Tensor self, Tensor other) -> Tensor
              dispach:
                CPU: add_cpu
            """,
            (2, "unknown key 'dispach' in 'add.Tensor'; did you mean 'dispatch'?"))

    def test_unknown_key_without_a_close_match_lists_the_keys(self):
        self.assertErrors("""
            - func: add.Tensor(Tensor self, Tensor other) -> Tensor
              python_module: nn
            """,
            (2, f"unknown key 'python_module' in 'add.Tensor'; expected one of: {ENTRY_KEYS}"))

    def test_malformed_schema_reports_the_column(self):
        self.assertErrors("""
            - func: relu(Tensor self) -> Tensor
            - func: add.Tensor(Tensor(a!) self Tensor other) -> Tensor
            """,
            (2, "malformed schema for 'add.Tensor': expected ',' or ')' at column 28, "
                "found 'Tensor'"))

    def test_malformed_schema_unknown_type(self):
        self.assertErrors("""
            - func: add.Tensor(Tensor self, Sclar alpha) -> Tensor
            """,
            (1, "malformed schema for 'add.Tensor': unknown type 'Sclar' at column 25; "
                "did you mean 'Scalar'?"))

    def test_unknown_variant(self):
        self.assertErrors("""
            - func: add.Tensor(Tensor self, Tensor other) -> Tensor
              variants: function, methd
            """,
            (2, "unknown variant 'methd' in 'add.Tensor'; did you mean 'method'?"))

    def test_unknown_tag(self):
        self.assertErrors("""
            - func: add.Tensor(Tensor self, Tensor other) -> Tensor
              tags: [reduction, pointwse]
            """,
            (2, "unknown tag 'pointwse' in 'add.Tensor'; did you mean 'pointwise'?"))

    def test_unknown_tag_in_a_block_list_points_at_its_item(self):
        self.assertErrors("""
            - func: add.Tensor(Tensor self, Tensor other) -> Tensor
              tags:
                - pointwise
                - reductoin
            """,
            (4, "unknown tag 'reductoin' in 'add.Tensor'; did you mean 'reduction'?"))

    def test_unknown_dispatch_key(self):
        self.assertErrors("""
            - func: add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
              dispatch:
                CPU: add_out_cpu
                CUDAA: add_out_cuda
            """,
            (4, "unknown dispatch key 'CUDAA' in 'add.out'; did you mean 'CUDA'?"))

    def test_unknown_dispatch_key_in_a_joined_key(self):
        self.assertErrors("""
            - func: add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
              dispatch:
                CPU, Cuda: add_out
            """,
            (3, "unknown dispatch key 'Cuda' in 'add.out'; did you mean 'CUDA'?"))

    def test_dispatch_kernel_must_be_a_cpp_identifier(self):
        self.assertErrors("""
            - func: add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
              dispatch:
                CPU: add-out-cpu
                CUDA: 42
            """,
            (3, "kernel name 'add-out-cpu' for dispatch key 'CPU' in 'add.out' is not a C++ "
                "identifier"),
            (4, "kernel name 42 for dispatch key 'CUDA' in 'add.out' is not a C++ identifier"))

    def test_dispatch_key_given_twice(self):
        self.assertErrors("""
            - func: add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
              dispatch:
                CPU, CUDA: add_out
                CPU: add_out_cpu
            """,
            (4, "dispatch key 'CPU' in 'add.out' given twice (first at line 3)"))

    def test_dispatch_must_be_a_mapping(self):
        self.assertErrors("""
            - func: relu(Tensor self) -> Tensor
              dispatch: relu_cpu
            """,
            (2, "'dispatch' in 'relu' must be a mapping, found 'relu_cpu'"))

    def test_bool_keys(self):
        self.assertErrors("""
            - func: relu(Tensor self) -> Tensor
              device_guard: sometimes
              structured: 1
            """,
            (2, "'device_guard' in 'relu' must be True or False, found 'sometimes'"),
            (3, "'structured' in 'relu' must be True or False, found 1"))

    def test_unknown_device_check(self):
        self.assertErrors("""
            - func: relu(Tensor self) -> Tensor
              device_check: Exact
            """,
            (2, "unknown device_check 'Exact' in 'relu'; did you mean 'ExactSame'?"))

    def test_keys_nothing_reads_are_unknown(self):
        # torchgen's autogen, manual_cpp_binding and view tags: nothing here would read them.
        self.assertErrors("""
            - func: relu(Tensor self) -> Tensor
              autogen: relu.out
              manual_cpp_binding: True
              tags: [pointwise, view]
            """,
            (2, f"unknown key 'autogen' in 'relu'; expected one of: {ENTRY_KEYS}"),
            (3, f"unknown key 'manual_cpp_binding' in 'relu'; expected one of: {ENTRY_KEYS}"),
            (4, "unknown tag 'view' in 'relu'; expected one of: pointwise, reduction, "
                "nondeterministic_seeded, factory"))


class ManyMistakesTest(SchemaTestCase):
    def test_every_mistake_is_reported_in_file_order(self):
        self.assertErrors("""
            - func: add.Tensor(Tensor self, Tensor other) -> Tensor
              variants: function, methd
              tags: pointwse
              structured: True
            - func: sub.Tensor(Tensor self Tensor other) -> Tensor
              dispach: {CPU: sub}
            - 3
            """,
            (2, "unknown variant 'methd' in 'add.Tensor'; did you mean 'method'?"),
            (3, "unknown tag 'pointwse' in 'add.Tensor'; did you mean 'pointwise'?"),
            (4, "'structured: True' on 'add.Tensor', which is not an out overload; only out "
                "overloads are structured, the others name one with structured_delegate"),
            (5, "malformed schema for 'sub.Tensor': expected ',' or ')' at column 24, "
                "found 'Tensor'"),
            (6, "unknown key 'dispach' in 'sub.Tensor'; did you mean 'dispatch'?"),
            (7, "entry must be a mapping with a 'func' key, found 3"))

    def test_mistakes_in_several_files(self):
        first = self.write_yaml("""
            - func: relu(Tensor self) -> Tensor
            """, "a.yaml")
        second = self.write_yaml("""
            - func: gelu(Tensor self) -> Tensor
              tag: pointwise
            - func: relu(Tensor self) -> Tensor
            """, "b.yaml")
        with self.assertRaises(SchemaErrors) as caught:
            load_registry([first, second])
        self.assertEqual([str(e) for e in caught.exception.errors], [
            f"{second}:2: unknown key 'tag' in 'gelu'; did you mean 'tags'?",
            f"{second}:3: duplicate overload 'relu' (first declared at {first}:1)",
        ])


if __name__ == "__main__":
    unittest.main()
