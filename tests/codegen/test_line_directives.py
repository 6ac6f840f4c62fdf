"""Derivative formulas keep their schema line in the generated C++ (Note [Formulas keep their
line], codegen/line_directives.py): a `#line` naming the schema file and line precedes each
pasted formula, a `#line` back to the generated file follows it, and a formula that does not
compile is reported by the compiler at its schema line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import REPO_ROOT, SchemaTestCase  # noqa: E402

from codegen import render  # noqa: E402
from codegen.registry import expand_schema_paths, load_registry  # noqa: E402

TEMPLATES = REPO_ROOT / "templates"

# `twice` has a backward formula on line 5 and a forward formula written as a block scalar
# whose text starts on line 7 (the `|` is on line 6).
TWICE = """
    - func: twice(Tensor self) -> Tensor
      dispatch:
        CompositeExplicitAutograd: twice
      derivatives:
        self: grad * 2
        result: |
          self_t * 2
    """
BACKWARD_LINE, FORWARD_LINE = 5, 7


def directive(line: int, path: str) -> str:
    return f'#line {line} "{os.path.normpath(path)}"'


class LineDirectivesTest(SchemaTestCase):
    def render(self, text: str) -> tuple[str, dict[str, list[str]]]:
        """(schema path, generated file name -> its lines) for one schema file."""
        schema = self.write_yaml(text)
        out = self.folder / "generated"
        paths = render.render_all(load_registry([schema]), TEMPLATES, out)
        return schema, {p.name: p.read_text(encoding="utf-8").split("\n") for p in paths}

    def only_line(self, files: dict[str, list[str]], prefix: str, needle: str) -> tuple[str, int]:
        """(file name, 0-based index) of the one line containing `needle` in files named prefix*."""
        hits = [(name, index) for name, lines in files.items() if name.startswith(prefix)
                for index, line in enumerate(lines) if needle in line]
        self.assertEqual(len(hits), 1, f"{needle!r} in {prefix}*: {hits}")
        return hits[0]

    def assert_framed(self, files, name: str, index: int, schema: str, schema_line: int) -> None:
        lines = files[name]
        self.assertEqual(lines[index - 1], directive(schema_line, schema))
        # Back to the generated file (named relative to the current directory, as the
        # build's compiler names it): the line after the directive is its own line number.
        resume = os.path.relpath(self.folder / "generated" / name)
        self.assertEqual(lines[index + 1], f'#line {index + 3} "{resume}"')

    def test_backward_formula_names_its_schema_line(self):
        schema, files = self.render(TWICE)
        name, index = self.only_line(files, "AutogradFunctions_", "grads[0] * 2")
        self.assert_framed(files, name, index, schema, BACKWARD_LINE)

    def test_forward_formula_in_a_block_scalar_names_the_line_of_its_text(self):
        schema, files = self.render(TWICE)
        name, index = self.only_line(files, "VariableType_", "self_t * 2")
        self.assert_framed(files, name, index, schema, FORWARD_LINE)

    def test_only_formulas_carry_directives(self):
        _, files = self.render(TWICE)
        for name, lines in files.items():
            count = sum(1 for line in lines if line.startswith("#line"))
            expected = 2 if name.startswith(("AutogradFunctions_", "VariableType_")) and \
                any("* 2" in line for line in lines) else 0
            self.assertEqual(count, expected, name)


@unittest.skipUnless(os.environ.get("TG_BUILD_DIR"), "needs TG_BUILD_DIR (set by meson test)")
class BrokenFormulaTest(unittest.TestCase):
    """The real schemas plus one operator whose backward formula does not compile: the
    compiler's error names the schema file and the formula's line. Compiling one generated
    shard takes ~15 s here; it is the only way to see what the compiler reports."""

    def test_compiler_error_names_the_schema_line(self):
        with tempfile.TemporaryDirectory(prefix="tensorgen-line-") as folder:
            folder = Path(folder)
            broken = folder / "broken.yaml"
            # Line 5: a vector of sizes times a tensor, which has no operator*.
            broken.write_text(
                "- func: broken_formula_op(Tensor self) -> Tensor\n"
                "  dispatch:\n"
                "    CompositeExplicitAutograd: broken_formula_op\n"
                "  derivatives:\n"
                "    self: grad * self.sizes()\n"
                "    result: auto_element_wise\n", encoding="utf-8")
            paths = expand_schema_paths([str(REPO_ROOT / "schemas")]) + [str(broken)]
            out = folder / "generated"
            render.render_all(load_registry(paths), TEMPLATES, out)
            shard = next(p for p in out.glob("AutogradFunctions_*.cpp")
                         if "BrokenFormulaOpBackward" in p.read_text(encoding="utf-8"))
            result = subprocess.run(
                [os.environ.get("CXX", "c++"), "-std=c++20", "-fsyntax-only", "-fmax-errors=1",
                 f"-I{REPO_ROOT / 'runtime'}", f"-I{out}", str(shard)],
                capture_output=True, text=True)
        self.assertNotEqual(result.returncode, 0)
        errors = [line for line in result.stderr.splitlines() if re.search(r"\berror\b", line)]
        self.assertTrue(errors, result.stderr)
        self.assertTrue(errors[0].startswith(f"{os.path.normpath(broken)}:5:"), result.stderr)


if __name__ == "__main__":
    unittest.main()
