"""The conformance harness catches planted faults.

A temporary copy of the schemas gets a wrong derivative (tanh's) and a wrong kernel (exp's
`kernel:` formula is sigmoid's). The generator runs over the copy; the generated sources
that changed, or include a generated header that changed, are compiled (at -O0, with the build's own compile commands) and linked with the
build's other objects into a conformance executable. Its gradcheck case for tanh and its
reference case for exp must fail, naming the operator and the input; untouched operators
must still pass. Needs TG_BUILD_DIR (set by `meson test`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TG_BUILD_DIR", REPO / "build")).resolve()

WRONG_DERIVATIVE = ("    self: grad * (1 - result * result)\n", "    self: grad * (1 + result * result)\n")
WRONG_KERNEL = ('formula: "hd::exp(x)"', 'formula: "activation::sigmoid(x)"')


def plant(text: str, fault: tuple[str, str]) -> str:
    assert text.count(fault[0]) == 1, f"the planted line {fault[0]!r} is not unique"
    return text.replace(*fault)


def library_link(build_ninja: str) -> tuple[list[str], list[str]]:
    """The library's objects and its link arguments, from build.ninja."""
    match = re.search(r"^build libtensorgen\.so: \S+ (.*?)(?: \|[^\n]*)?\n LINK_ARGS = (.*)$", build_ninja, re.M)
    assert match, "libtensorgen.so's link edge not found in build.ninja"
    objects = match.group(1).split()
    args = [a for a in shlex.split(match.group(2))
            if a not in ("-shared", "-Wl,--no-undefined") and not a.startswith("-Wl,-soname")]
    return objects, args


def compile_command(entry: dict, source: Path, obj: Path, planted_include: Path) -> list[str]:
    """The build's command for `entry`, compiling `source` into `obj` at -O0."""
    words = shlex.split(entry["command"])
    if Path(words[0]).name == "ccache":  # a build configured with CXX="ccache c++"
        words = words[1:]
    out, skip = [words[0], f"-I{planted_include}"], False
    for i, word in enumerate(words[1:], 1):
        if skip:
            skip = False
            continue
        if word in ("-MQ", "-MF", "-o", "-c"):
            skip = True
            continue
        if word in ("-MD", "-O3", "-O2"):
            continue
        if word == entry["file"] or word.endswith("/" + Path(entry["file"]).name) and i == len(words) - 1:
            continue
        out.append(word)
    return out + ["-O0", "-o", str(obj), "-c", str(source)]


@unittest.skipUnless((BUILD / "build.ninja").exists(), "needs a configured build (TG_BUILD_DIR)")
class PlantedFaultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="tg-planted-"))
        schemas = cls.tmp / "schemas"
        shutil.copytree(REPO / "schemas", schemas)
        pointwise = schemas / "pointwise.yaml"
        pointwise.write_text(plant(plant(pointwise.read_text(), WRONG_DERIVATIVE), WRONG_KERNEL))
        # Same relative schema paths as the build's, so unchanged files come out identical.
        gen_cwd = cls.tmp / "build"
        gen = gen_cwd / "generated"
        gen.mkdir(parents=True)
        subprocess.run([sys.executable, str(REPO / "codegen" / "main.py"), "--schemas",
                        *sorted(f"../schemas/{p.name}" for p in schemas.glob("*.yaml")),
                        "--out-dir", str(gen)], cwd=gen_cwd, check=True)
        cls.exe = cls.build_planted_executable(gen)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def build_planted_executable(cls, gen: Path) -> Path:
        entries = {Path(e["file"]).name: e for e in json.loads((BUILD / "compile_commands.json").read_text())
                   if e["file"].startswith("generated/") or "/generated/" in e["file"]}
        objects, link_args = library_link((BUILD / "build.ninja").read_text())
        harness = sorted(str(p) for p in (BUILD / "tests/conformance/conformance.p").glob("*.o")
                         if "ConformanceTests_" not in p.name)
        conformance_sources = sorted(p.name for p in gen.glob("ConformanceTests_*.cpp"))
        jobs, final_objects = [], []

        def changed(name: str) -> bool:
            return (gen / name).read_text() != (BUILD / "generated" / name).read_text()

        # exp's formula lives in PointwiseKernels.h; the CPU kernel that runs it is instantiated
        # in PointwiseKernelsCPU_unary.cpp (the template loop, included through
        # cpu/unary_family_loop.h), so the generated PointwiseKernels* sources, which all
        # include that header, are recompiled too.
        # (The other generated headers list the schemas in the build's order, not this copy's.)
        changed_headers = {"PointwiseKernels.h"} & {p.name for p in gen.glob("*.h") if changed(p.name)}
        for obj in objects:
            name = re.sub(r"^.*_generated_", "", obj)[: -len(".o")] if "_generated_" in obj else None
            includes = set(re.findall(r'#include "(\w+\.h)"', (gen / name).read_text())) if name else set()
            if name and (changed(name) or includes & changed_headers
                         or any(name.startswith(Path(h).stem) for h in changed_headers)):
                target = cls.tmp / (name + ".o")
                jobs.append(compile_command(entries[name], gen / name, target, gen))
                final_objects.append(str(target))
            else:
                final_objects.append(str(BUILD / obj))
        # Only the conformance shards that test the planted operators.
        for name in conformance_sources:
            text = (gen / name).read_text()
            if 'TEST_CASE("exp: reference")' in text or 'TEST_CASE("tanh: gradcheck")' in text:
                target = cls.tmp / (name + ".o")
                jobs.append(compile_command(entries[name], gen / name, target, gen))
                final_objects.append(str(target))
        assert len(jobs) <= 10, f"the planted faults changed {len(jobs)} files; expected a few"
        running = [subprocess.Popen(cmd, cwd=BUILD) for cmd in jobs]
        for process in running:
            assert process.wait() == 0, "compiling a planted source failed"
        exe = cls.tmp / "planted_conformance"
        subprocess.run(["c++", "-o", str(exe), *final_objects, *harness, *link_args, "-pthread"],
                       cwd=BUILD, check=True)
        return exe

    def run_cases(self, pattern: str) -> subprocess.CompletedProcess:
        env = dict(os.environ, TG_CONFORMANCE_REPORT=str(self.tmp / "report.md"))
        return subprocess.run([str(self.exe), f"--test-case={pattern}"], cwd=BUILD, env=env,
                              capture_output=True, text=True)

    def test_wrong_derivative_fails_gradcheck_naming_operator_and_input(self):
        result = self.run_cases("tanh: gradcheck")
        self.assertNotEqual(result.returncode, 0, result.stdout)
        self.assertIn("tanh, sample 0", result.stdout)
        self.assertIn("gradcheck failed", result.stdout)
        self.assertIn("'self'", result.stdout)

    def test_wrong_kernel_fails_the_reference_check_naming_operator_and_input(self):
        result = self.run_cases("exp: reference")
        self.assertNotEqual(result.returncode, 0, result.stdout)
        self.assertIn("exp, sample 0 (self: float", result.stdout)
        self.assertIn("disagrees with the reference `std::exp(self)`", result.stdout)

    def test_untouched_operators_still_pass(self):
        # Only the shards holding exp and tanh are compiled: checks of theirs the faults do not touch.
        result = self.run_cases("tanh: reference,tanh: variants,tanh: noncontiguous,exp: boxed")
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertIn("4 passed", result.stdout)


if __name__ == "__main__":
    unittest.main()
