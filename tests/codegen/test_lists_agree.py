"""Lists that the generator (Python) and the runtime (C++) or the build (Meson) each keep must
agree (issue 18 point 2): the dtypes, the conformance checks and the generator's own test list.
Each test reads the C++ or Meson text itself, so that an entry added on one side only fails
here with the name that is missing."""

import re
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import REPO_ROOT  # noqa: E402

from codegen import conformance, cpp_types  # noqa: E402
from codegen.model import CONFORMANCE_CHECKS, DTYPES  # noqa: E402


def scalar_types() -> list[tuple[str, str]]:
    """(enum name, schema name) of each entry of TG_FORALL_SCALAR_TYPES, in order."""
    text = (REPO_ROOT / "runtime/core/scalar_type.h").read_text()
    macro = re.search(r"#define TG_FORALL_SCALAR_TYPES\(_\)((?:.*\\\n)*.*\n)", text)
    assert macro, "TG_FORALL_SCALAR_TYPES not found in runtime/core/scalar_type.h"
    return re.findall(r"_\(\s*[\w:]+\s*,\s*(\w+)\s*,\s*(\w+)\s*\)", macro.group(1))


def cpp_string_list(path: str, function: str) -> list[str]:
    """The string literals of the initializer list that `function` returns in `path`."""
    text = (REPO_ROOT / path).read_text()
    body = re.search(function + r"\(\)\s*\{(.*?)\n\}", text, re.S)
    assert body, f"{function}() not found in {path}"
    return re.findall(r'"([^"]*)"', body.group(1))


class DtypesAgree(unittest.TestCase):
    def test_schema_dtypes_are_the_runtime_scalar_types(self):
        runtime = scalar_types()
        self.assertEqual(len(runtime), 10, runtime)
        self.assertEqual(sorted(name for _, name in runtime), sorted(DTYPES))

    def test_conformance_enum_constants_name_the_same_scalar_types(self):
        # DTYPE_ENUMS maps a schema dtype to LibTorch's constant (kDouble ...), which
        # scalar_type.h defines as ScalarType::<enum name>.
        header = (REPO_ROOT / "runtime/core/scalar_type.h").read_text()
        constants = dict(re.findall(r"(k\w+) = ScalarType::(\w+)", header))
        self.assertEqual(sorted(conformance.DTYPE_ENUMS), sorted(DTYPES))
        for dtype, enum in scalar_types():
            self.assertEqual(constants.get(conformance.DTYPE_ENUMS[enum]), dtype, enum)

    def test_cpp_types_map_every_schema_dtype_to_its_enum(self):
        for dtype, name in scalar_types():
            self.assertEqual(cpp_types._SCALAR_TYPES.get(name), dtype, name)
        self.assertTrue(set(cpp_types._SCALAR_TYPES.values()) <= {dtype for dtype, _ in scalar_types()})


class ChecksAgree(unittest.TestCase):
    def test_report_columns_are_the_schema_checks_in_order(self):
        self.assertEqual(cpp_string_list("tests/conformance/report.cpp", "check_names"), list(CONFORMANCE_CHECKS))


class TestListsAgree(unittest.TestCase):
    def test_every_generator_test_file_is_a_meson_test(self):
        meson = (REPO_ROOT / "tests/codegen/meson.build").read_text()
        block = re.search(r"codegen_tests = \[(.*?)\]", meson, re.S)
        assert block, "codegen_tests not found in tests/codegen/meson.build"
        listed = re.findall(r"'(test_\w+\.py)'", block.group(1))
        present = sorted(p.name for p in (REPO_ROOT / "tests/codegen").glob("test_*.py"))
        self.assertEqual(sorted(listed), present)


if __name__ == "__main__":
    unittest.main()
