"""codegen/main.py run as the build runs it: exit status, `file:line: message` on stderr,
never a traceback for a user mistake, and rendering that rewrites only what changed."""

import os
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import SchemaTestCase, run_main  # noqa: E402

from codegen.writer import banner  # noqa: E402

VALID = """
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
  structured_delegate: add.out
- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU, CUDA: add_out
"""


class CheckTest(SchemaTestCase):
    def assertFails(self, result, *lines):
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertNotIn("Traceback", result.stderr)
        self.assertEqual(result.stdout, "")
        self.assertEqual(result.stderr.splitlines(), list(lines))

    def test_valid_schemas_pass(self):
        result = run_main(["--schemas", self.write_yaml(VALID), "--check"])
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, "", ""))

    def test_schema_mistakes_exit_1_with_one_line_each(self):
        path = self.write_yaml("""
            - func: add.Tensor(Tensor self, Tensor other) -> Tensor
              dispach: {CPU: add}
            - func: add_.Tensor(Tensor self, Tensor other) -> Tensor
            - func: add.Tensor(Tensor self, Tensor other) -> Tensor
            """)
        self.assertFails(
            run_main(["--schemas", path, "--check"]),
            f"{path}:2: unknown key 'dispach' in 'add.Tensor'; did you mean 'dispatch'?",
            f"{path}:3: in-place overload 'add_.Tensor' must take 'Tensor(a!) self', "
            "found 'Tensor self'",
            f"{path}:4: duplicate overload 'add.Tensor' (first declared at {path}:1)")

    def test_malformed_schema(self):
        path = self.write_yaml("""
            - func: add.Tensor(Tensor(a!) self Tensor other) -> Tensor
            """)
        self.assertFails(
            run_main(["--schemas", path, "--check"]),
            f"{path}:1: malformed schema for 'add.Tensor': expected ',' or ')' at column 28, "
            "found 'Tensor'")

    def test_yaml_syntax_error(self):
        path = self.write_yaml("- func: relu(Tensor self) -> Tensor\n  tags: [core\n")
        self.assertFails(
            run_main(["--schemas", path, "--check"]),
            f"{path}:3: invalid YAML: expected ',' or ']', but got '<stream end>' (column 1)")

    def test_relative_paths_from_another_directory(self):
        self.write_yaml("- func: relu(Tensor self) -> Tensor\n  tag: core\n", "nn.yaml")
        self.assertFails(
            run_main(["--schemas", "nn.yaml", "--check"], cwd=self.folder),
            "nn.yaml:2: unknown key 'tag' in 'relu'; did you mean 'tags'?")

    def test_missing_file(self):
        self.assertFails(
            run_main(["--schemas", "absent.yaml", "--check"], cwd=self.folder),
            "absent.yaml: cannot read schema file: No such file or directory")

    def test_a_directory_stands_for_its_yaml_files(self):
        self.write_yaml(VALID, "pointwise.yaml")
        self.write_yaml("- func: relu(Tensor self) -> Tensor\n", "nn.yaml")
        (self.folder / "notes.txt").write_text("not a schema")
        result = run_main(["--schemas", str(self.folder), "--check"])
        self.assertEqual((result.returncode, result.stderr), (0, ""))

    def test_out_dir_is_required_without_check(self):
        result = run_main(["--schemas", self.write_yaml(VALID)])
        self.assertEqual(result.returncode, 2)
        self.assertIn("--out-dir is required unless --check is given", result.stderr)


class RenderCliTest(SchemaTestCase):
    def test_renders_templates_and_rewrites_only_what_changed(self):
        schemas = self.write_yaml(VALID)
        templates = self.folder / "templates"
        templates.mkdir()
        (templates / "Operators.h.j2").write_text(
            "{% for f in functions %}\n{{ f.full_name }}: {{ f.kind }}\n{% endfor %}\n")
        out = self.folder / "out"
        arguments = ["--schemas", schemas, "--out-dir", str(out), "--templates", str(templates)]

        result = run_main(arguments)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        generated = out / "Operators.h"
        self.assertEqual(generated.read_text(),
                         banner("Operators.h.j2") + "add.Tensor: functional\nadd.out: out\n")

        os.utime(generated, ns=(0, 0))
        self.assertEqual(run_main(arguments).returncode, 0)
        self.assertEqual(generated.stat().st_mtime_ns, 0)

        (templates / "Operators.h.j2").write_text("{{ functions | length }}\n")
        self.assertEqual(run_main(arguments).returncode, 0)
        self.assertEqual(generated.read_text(), banner("Operators.h.j2") + "2\n")

    def test_template_syntax_error_is_reported_with_its_line(self):
        templates = self.folder / "templates"
        templates.mkdir()
        (templates / "Bad.h.j2").write_text("line one\n{% for f in functions %}\n")
        result = run_main(["--schemas", self.write_yaml(VALID), "--out-dir",
                           str(self.folder / "out"), "--templates", str(templates)])
        self.assertEqual(result.returncode, 1)
        self.assertNotIn("Traceback", result.stderr)
        self.assertTrue(result.stderr.startswith(f"{templates / 'Bad.h.j2'}:2: "),
                        result.stderr)

    def test_no_templates_writes_nothing(self):
        out = self.folder / "out"
        result = run_main(["--schemas", self.write_yaml(VALID), "--out-dir", str(out),
                           "--templates", str(self.folder / "empty")])
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertFalse(out.exists())


if __name__ == "__main__":
    unittest.main()
