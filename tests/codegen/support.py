"""Shared helpers for the codegen tests: import path, temporary schema files, the CLI.

Importing this module makes `codegen` importable whatever the current directory is.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path
from typing import Sequence

REPO_ROOT = Path(__file__).resolve().parents[2]
MAIN = REPO_ROOT / "codegen" / "main.py"
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from codegen.errors import SchemaErrors  # noqa: E402
from codegen.registry import Registry, load_registry  # noqa: E402


class SchemaTestCase(unittest.TestCase):
    """A test with a private temporary folder for schema files."""

    maxDiff = None

    def setUp(self) -> None:
        folder = tempfile.TemporaryDirectory(prefix="tensorgen-codegen-")
        self.addCleanup(folder.cleanup)
        self.folder = Path(folder.name)

    def write_yaml(self, text: str, name: str = "ops.yaml") -> str:
        """Writes dedented `text` to a file in the temporary folder; returns its path."""
        path = self.folder / name
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return str(path)

    def load(self, text: str) -> Registry:
        """The registry of one schema file; fails the test on any schema error."""
        path = self.write_yaml(text)
        try:
            return load_registry([path])
        except SchemaErrors as failure:
            self.fail("unexpected schema errors:\n" + str(failure))

    def errors_of(self, text: str, name: str = "ops.yaml") -> tuple[str, list[str]]:
        """(path, every error message as printed) for a schema file that must fail."""
        path = self.write_yaml(text, name)
        with self.assertRaises(SchemaErrors) as caught:
            load_registry([path])
        return path, [str(error) for error in caught.exception.errors]

    def assertErrors(self, text: str, *expected: tuple[int, str]) -> None:
        """The file fails with exactly these `file:line: message` errors, in this order."""
        path, errors = self.errors_of(text)
        self.assertEqual(errors, [f"{path}:{line}: {message}" for line, message in expected])


def run_main(arguments: Sequence[str], cwd: str | Path | None = None
             ) -> subprocess.CompletedProcess:
    """Runs codegen/main.py as a script, the way the build does."""
    environment = dict(os.environ)
    environment.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable, str(MAIN), *arguments], cwd=cwd,
                          capture_output=True, text=True, env=environment, timeout=120)
