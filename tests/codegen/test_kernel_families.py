"""Pointwise kernels declared in the schema (`kernel:`, codegen/kernel_families.py): the
generated enum, name table, dtype classes and formula switch follow the schemas, no
hand-written file keeps a per-operator list, and every mistake in the key is a file:line
error."""

import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import REPO_ROOT, SchemaTestCase  # noqa: E402

from codegen import render  # noqa: E402
from codegen.kernel_families import FAMILIES  # noqa: E402
from codegen.registry import expand_schema_paths, load_registry  # noqa: E402


def rendered_pointwise_files(registry):
    """The generator's PointwiseKernels.h, .cpp (with the template families' CPU kernels,
    PointwiseKernelsCPU_<family>.cpp, appended) and CUDA.cpp for `registry`, as texts."""
    with tempfile.TemporaryDirectory() as out:
        render.render_all(registry, REPO_ROOT / "templates", out)
        header, cpu, cuda = ((Path(out) / name).read_text()
                             for name in ("PointwiseKernels.h", "PointwiseKernels.cpp", "PointwiseKernelsCUDA.cpp"))
        for path in sorted(Path(out).glob("PointwiseKernelsCPU_*.cpp")):
            cpu += path.read_text()
        return header, cpu, cuda


UNARY_OUT = "- func: cbrt.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n"
BINARY_OUT = ("- func: hypot.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)\n"
              "  structured: True\n")


def schema_kernels() -> list[tuple[str, dict]]:
    """Read with plain PyYAML, not the generator: [(operator, its kernel: mapping)] in schema
    order (files sorted, as the build passes them)."""
    return [(entry["func"].split("(")[0].split(".")[0], entry["kernel"])
            for path in sorted((REPO_ROOT / "schemas").glob("*.yaml"))
            for entry in yaml.safe_load(path.read_text()) or [] if entry.get("kernel")]


def schema_declarations() -> dict[str, list[tuple[str, str, str]]]:
    """family -> [(operator, formula, dtypes)] in schema order."""
    declared: dict[str, list[tuple[str, str, str]]] = {}
    for name, kernel in schema_kernels():
        family = FAMILIES[kernel["family"]]
        declared.setdefault(kernel["family"], []).append(
            (name, kernel["formula"], kernel.get("dtypes", family.dtype_classes[0])))
    return declared


def function_body(header: str, signature: str) -> str:
    """The text of the function whose definition starts with `signature`, to its closing brace."""
    start = header.index(signature)
    return header[start:header.index("\n}\n", start)]


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


class GeneratedListsFollowTheSchemaTest(unittest.TestCase):
    """PointwiseKernels.h, as the generator writes it now and as the build last wrote it."""

    @classmethod
    def setUpClass(cls):
        cls.declared = schema_declarations()
        registry = load_registry(expand_schema_paths([str(REPO_ROOT / "schemas")]))
        folder = tempfile.TemporaryDirectory()
        cls.addClassCleanup(folder.cleanup)
        render.render_all(registry, REPO_ROOT / "templates", folder.name)
        cls.headers = {"rendered": (Path(folder.name) / "PointwiseKernels.h").read_text()}
        build = os.environ.get("TG_BUILD_DIR")
        if build and (Path(build) / "generated" / "PointwiseKernels.h").exists():
            cls.headers["built"] = (Path(build) / "generated" / "PointwiseKernels.h").read_text()

    def test_the_schemas_declare_every_family(self):
        self.assertEqual(sorted(self.declared), sorted(FAMILIES))
        self.assertIn("erfinv", [name for name, _, _ in self.declared["float_unary"]])
        self.assertIn("sigmoid", [name for name, _, _ in self.declared["unary"]])
        self.assertIn("ge", [name for name, _, _ in self.declared["compare"]])
        self.assertEqual([name for name, _, _ in self.declared["binary"]], ["add", "sub", "mul", "div", "pow"])

    def check_header(self, header: str) -> None:
        for family_name, ops in self.declared.items():
            family = FAMILIES[family_name]
            with self.subTest(family=family_name):
                enum = re.search(rf"enum class {family.enum} : uint8_t \{{(.*?)\}};", header)
                self.assertIsNotNone(enum, f"no enum {family.enum}")
                self.assertEqual(re.findall(r"\w+", enum.group(1)), [camel(n) for n, _, _ in ops])
                names = re.search(rf"{family_name}_name\({family.enum} op\) \{{\s*constexpr const "
                                  r"char\* kNames\[\] = \{(.*?)\};", header)
                self.assertEqual(re.findall(r'"(\w+)"', names.group(1)), [n for n, _, _ in ops])
                switch = re.search(rf"inline {family.result} {family_name}\({family.enum} op, .*?\n}}\n",
                                   header, re.S)
                cases = re.findall(rf"case {family.enum}::(\w+):\n(?:.*\n)*?\s+return (.*);\n",
                                   switch.group(0))
                self.assertEqual(cases, [(camel(n), f) for n, f, _ in ops])
                if len(family.dtype_classes) > 1:
                    body = function_body(header, f"constexpr bool {family_name}_floating_only(")
                    classes = re.findall(rf"case {family.enum}::(\w+): return (true|false);", body)
                    self.assertEqual(classes, [(camel(n), "true" if d == "floating" else "false")
                                               for n, _, d in ops])
                if family.has_numeric_choice:
                    body = function_body(header, f"constexpr bool {family_name}_numeric_only(")
                    classes = re.findall(rf"case {family.enum}::(\w+): return (true|false);", body)
                    self.assertEqual(classes, [(camel(n), "true" if d == "numeric" else "false")
                                               for n, _, d in ops])
                if family.vectorizable:
                    self.check_vector_path(header, family_name)

    def check_vector_path(self, header: str, family_name: str) -> None:
        """The operators with `vectorized: True`, and only they, take the vector path, with
        their own formula."""
        family = FAMILIES[family_name]
        declared = [(name, kernel) for name, kernel in schema_kernels()
                    if kernel["family"] == family_name]
        body = function_body(header, f"constexpr bool {family_name}_has_vector_path(")
        self.assertEqual(re.findall(rf"case {family.enum}::(\w+): return (true|false);", body),
                         [(camel(n), "true" if k.get("vectorized") else "false") for n, k in declared])
        switch = function_body(header, f"inline T {family_name}_vectorized(")
        self.assertEqual(re.findall(rf"case {family.enum}::(\w+):\n(?:.*\n)*?\s+return (.*);\n", switch),
                         [(camel(n), k["formula"]) for n, k in declared if k.get("vectorized")])

    def test_rendered_header_follows_the_schemas(self):
        self.check_header(self.headers["rendered"])

    @unittest.skipUnless(os.environ.get("TG_BUILD_DIR"), "needs TG_BUILD_DIR (set by meson test)")
    def test_built_header_follows_the_schemas(self):
        self.assertIn("built", self.headers, "the build has no generated/PointwiseKernels.h")
        self.check_header(self.headers["built"])

    def test_no_hand_written_file_lists_the_operators(self):
        """The enum constants appear in generated code only: a hand-written case, name or
        kernel for one operator would be a list kept in sync by hand."""
        constants = {f"{FAMILIES[f].enum}::{camel(n)}" for f, ops in self.declared.items()
                     for n, _, _ in ops}
        per_operator_kernels = {f"{n}_out_cpu" for ops in self.declared.values() for n, _, _ in ops}
        for path in (REPO_ROOT / "kernels").rglob("*"):
            if path.suffix not in (".h", ".cpp", ".cu", ".cuh"):
                continue
            text = path.read_text()
            for constant in constants | per_operator_kernels:  # whole words: arange_out_cpu is not ge's
                self.assertIsNone(re.search(rf"\b{constant}\b", text),
                                  f"{path.relative_to(REPO_ROOT)} names {constant}")


class FormulaCompileErrorTest(SchemaTestCase):
    """A formula that does not compile is reported at its schema line (`#line`), for the host;
    a formula that compiles gives a switch that computes it."""

    def compile(self, formula: str) -> subprocess.CompletedProcess:
        path = self.write_yaml(UNARY_OUT + f'  kernel: {{family: float_unary, formula: "{formula}"}}\n')
        render.render_all(load_registry([path]), REPO_ROOT / "templates", self.folder)
        main = self.folder / "main.cpp"
        main.write_text('#include "PointwiseKernels.h"\n'
                        "int main() {\n"
                        "  volatile double x = -27.5;  // not folded: libm's cbrt is not correctly rounded\n"
                        "  return tg::math::float_unary(tg::FloatUnaryOp::Cbrt, double(x)) == std::cbrt(x) ? 0 : 1;\n"
                        "}\n")
        return subprocess.run(
            [os.environ.get("CXX", "c++"), "-std=c++20", "-Wall", "-Wextra", "-Werror",
             f"-I{self.folder}", f"-I{REPO_ROOT / 'kernels'}", f"-I{REPO_ROOT / 'runtime'}",
             str(main), "-o", str(self.folder / "main")],
            capture_output=True, text=True, timeout=300)

    def test_bad_formula_names_its_schema_line(self):
        result = self.compile("TG_PM_CALL(cbrtx, x)")
        self.assertNotEqual(result.returncode, 0)
        errors = [line for line in result.stderr.splitlines() if "error:" in line]
        self.assertTrue(errors, result.stderr)
        self.assertRegex(errors[0], r"ops\.yaml:3:\d*:? error:.*cbrtx")

    def test_good_formula_computes(self):
        result = self.compile("TG_PM_CALL(cbrt, x)")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(subprocess.run([str(self.folder / "main")]).returncode, 0)


class LoopsRunTheDeclaredDtypesTest(unittest.TestCase):
    """Each dtype class a family offers is a DtypeSet its hand-written CPU loop and CUDA
    launcher dispatch on (kFloatingTypes for `floating`, ...): a class added to the generator
    but not to the loops fails here."""

    @staticmethod
    def body_of(text: str, signature: str) -> str:
        match = re.search(signature + r".*?\n}\n", text, re.S)
        return match.group(0) if match else ""

    def test_every_class_is_dispatched_on_both_sides(self):
        cpu_sources = "\n".join(p.read_text() for p in (REPO_ROOT / "kernels" / "cpu").glob("*"))
        cuda_source = (REPO_ROOT / "kernels" / "cuda" / "pointwise_math_ops.cu").read_text()
        for name, family in FAMILIES.items():
            loop_header = REPO_ROOT / "kernels" / "cpu" / f"{name}_family_loop.h"
            # A template loop may dispatch in a helper of its header (binary: dispatch_binary).
            cpu = loop_header.read_text() if family.cpu_template and loop_header.exists() \
                else self.body_of(cpu_sources, rf"void {name}_out_cpu\(")
            cuda = self.body_of(cuda_source, rf"void launch_{name}\(")
            for side, body in (("CPU loop", cpu), ("CUDA launcher", cuda)):
                with self.subTest(family=name, side=side):
                    self.assertTrue(body, f"no {side} for family {name}")
                    for dtype_class in family.dtype_classes:
                        constant = f"k{dtype_class.capitalize()}Types"
                        macro = f"TG_DISPATCH_{dtype_class.upper()}_TYPES"
                        self.assertTrue(constant in body or macro in body,
                                        f"the {side} of family {name} does not dispatch "
                                        f"dtype class {dtype_class} ({constant})")


class HandWrittenMetaAgreesTest(unittest.TestCase):
    """`meta: custom` says that meta::<op>_out is hand-written (kernels/meta/): it must be there
    exactly for those operators, else the library has none or two."""

    def test_custom_meta_is_hand_written_and_no_other(self):
        meta_sources = "\n".join(path.read_text() for path in (REPO_ROOT / "kernels" / "meta").glob("*.cpp"))
        for name, kernel in schema_kernels():
            defined = re.search(rf"TensorMeta meta::{name}_out\(", meta_sources) is not None
            with self.subTest(operator=name):
                self.assertEqual(defined, kernel.get("meta") == "custom",
                                 f"meta::{name}_out is {'' if defined else 'not '}hand-written, "
                                 f"but its schema entry says meta: {kernel.get('meta', 'family')}")


class OldHandKeptListsAreGoneTest(unittest.TestCase):
    """The enums, name tables, switches and dtype sets of pointwise.yaml's unary operators,
    comparisons and arithmetic operators used to be kept by hand in kernels/cuda/pointwise_ops.h,
    unary_ops.cu and binary_ops.cu, and their Scalar overloads in a TG_SCALAR_OVERLOADS list;
    they are generated now."""

    def test_no_hand_written_unary_enum_or_switch(self):
        for path in (REPO_ROOT / "kernels").rglob("*"):
            if path.suffix not in (".h", ".cpp", ".cu", ".cuh"):
                continue
            text = path.read_text()
            with self.subTest(path=str(path.relative_to(REPO_ROOT))):
                for enum in ("UnaryOp", "CompareOp", "BinaryOp"):
                    self.assertNotRegex(text, rf"enum class \w*{enum}\b")
                    self.assertNotRegex(text, rf"case {enum}::")
                    self.assertNotRegex(text, rf"_name\({enum} op\) \{{")


    def test_no_hand_written_scalar_overload_list(self):
        generated = [kernel for f in load_registry(expand_schema_paths([str(REPO_ROOT / "schemas")])).functions
                     if f.scalar_overload_of for kernel in f.dispatch.values()]
        self.assertIn("eq_scalar_", generated)
        for path in (REPO_ROOT / "kernels").rglob("*"):
            if path.suffix not in (".h", ".cpp", ".cu", ".cuh"):
                continue
            text = path.read_text()
            with self.subTest(path=str(path.relative_to(REPO_ROOT))):
                self.assertNotIn("TG_SCALAR_OVERLOADS", text)
                for kernel in generated:
                    self.assertIsNone(re.search(rf"\bTensor (native::)?{kernel}\(", text), f"defines {kernel}")


class KernelKeyTest(SchemaTestCase):
    def test_a_new_operator_needs_only_its_entry(self):
        registry = self.load(UNARY_OUT + '  kernel: {family: float_unary, formula: "TG_PM_CALL(cbrt, x)"}\n')
        f = registry.get("cbrt.out")
        self.assertEqual(dict(f.dispatch), {"CPU": "cbrt_out_cpu", "CUDA": "cbrt_out_cuda"})
        self.assertFalse(f.dispatch_defaulted)
        header, cpu, cuda = rendered_pointwise_files(registry)
        self.assertIn("enum class FloatUnaryOp : uint8_t { Cbrt };", header)
        self.assertIn('constexpr const char* kNames[] = {"cbrt"};', header)
        self.assertRegex(header, r'case FloatUnaryOp::Cbrt:\n#line 3 ".*ops.yaml"\n'
                                 r'      return TG_PM_CALL\(cbrt, x\);')
        self.assertIn("TensorMeta meta::cbrt_out(const Tensor& self) { "
                      "return pointwise_math::float_unary_meta(FloatUnaryOp::Cbrt, self); }", cpu)
        self.assertIn("void native::cbrt_out_cpu(const Tensor& self, const Tensor& out) { "
                      "pointwise_math::float_unary_out_cpu(FloatUnaryOp::Cbrt, self, out); }", cpu)
        self.assertIn("void native::cbrt_out_cuda(const Tensor& self, const Tensor& out) { "
                      "pointwise_math::float_unary_out_cuda(FloatUnaryOp::Cbrt, self, out); }", cuda)
        self.assertNotIn("MathBinaryOp", header)  # a family without operators is left out

    def test_floating_binary_operator_is_guarded_for_integral_types(self):
        registry = self.load(BINARY_OUT + '  kernel: {family: math_binary, dtypes: floating, '
                                          'formula: "TG_PM_CALL(hypot, a, b)"}\n')
        header = rendered_pointwise_files(registry)[0]
        self.assertIn("case MathBinaryOp::Hypot: return true;", header)
        self.assertRegex(header, r"if constexpr \(std::is_floating_point_v<T>\) \{\n#line .*\n"
                                 r"        return TG_PM_CALL\(hypot, a, b\);")

    def test_unknown_family(self):
        self.assertErrors(UNARY_OUT + '  kernel: {family: float_unray, formula: "x"}\n',
                          (3, "unknown kernel family 'float_unray' in 'cbrt.out'; did you mean "
                              "'float_unary'?"))

    def test_unknown_family_without_a_close_match_lists_them(self):
        self.assertErrors(UNARY_OUT + '  kernel: {family: gemm, formula: "x"}\n',
                          (3, "unknown kernel family 'gemm' in 'cbrt.out'; expected one of: "
                              "float_unary, math_binary, unary, compare, binary"))

    def test_missing_family(self):
        self.assertErrors(UNARY_OUT + '  kernel: {formula: "x"}\n',
                          (3, "'kernel' in 'cbrt.out' has no 'family'; expected one of "
                              "float_unary, math_binary, unary, compare, binary"))

    def test_missing_formula(self):
        self.assertErrors(UNARY_OUT + "  kernel: {family: float_unary}\n",
                          (3, "'kernel' in 'cbrt.out' has no 'formula': a C++ expression over x "
                              "(family float_unary)"))

    def test_formula_on_two_lines_or_with_a_statement(self):
        self.assertErrors(UNARY_OUT + "  kernel:\n    family: float_unary\n"
                                      "    formula: \"x; return x\"\n",
                          (5, "'kernel: formula' in 'cbrt.out' must be one C++ expression on one "
                              "line; write a longer formula as a function in "
                              "kernels/pointwise_math.h"))

    def test_unknown_key_in_kernel(self):
        self.assertErrors(UNARY_OUT + "  kernel:\n    family: float_unary\n    formula: x\n"
                                      "    vectorised: x\n",
                          (6, "unknown key of 'kernel' 'vectorised' in 'cbrt.out'; did you mean "
                              "'vectorized'?"),
                          )
        self.assertErrors(UNARY_OUT + "  kernel:\n    family: float_unary\n    formula: x\n"
                                      "    simd: x\n",
                          (6, "unknown key of 'kernel' 'simd' in 'cbrt.out'; expected one "
                              "of: family, formula, dtypes, vectorized, meta"))

    def test_vectorized_on_a_family_without_a_vector_form(self):
        self.assertErrors(UNARY_OUT + "  kernel:\n    family: float_unary\n    formula: x\n"
                                      "    vectorized: True\n",
                          (6, "'kernel: vectorized' in 'cbrt.out': family float_unary has no "
                              "vectorised CPU form; families with one: unary"))

    def test_vectorized_not_a_bool(self):
        self.assertErrors(UNARY_OUT + "  kernel:\n    family: unary\n    dtypes: floating\n"
                                      "    formula: x\n    vectorized: yes please\n",
                          (7, "'kernel: vectorized' in 'cbrt.out' must be True or False, found "
                              "'yes please'"))

    def test_meta_neither_family_nor_custom(self):
        self.assertErrors(UNARY_OUT + "  kernel:\n    family: unary\n    dtypes: floating\n"
                                      "    formula: x\n    meta: custon\n",
                          (7, "'kernel: meta' in 'cbrt.out' is 'custon'; expected 'family' (the "
                              "family's meta function) or 'custom' (meta::<op>_out written by "
                              "hand); did you mean 'custom'?"))

    def test_comparison_signature(self):
        self.assertErrors(BINARY_OUT + '  kernel: {family: compare, formula: "a < b"}\n',
                          (3, "'hypot.out' does not have the signature of kernel family compare: "
                              "expected 'hypot.Tensor_out(Tensor self, Tensor other, *, "
                              "Tensor(a!) out) -> Tensor(a!)'"))

    def test_a_new_comparison_is_bool(self):
        registry = self.load("- func: lg.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) "
                             "-> Tensor(a!)\n  structured: True\n"
                             '  kernel: {family: compare, formula: "a < b || a > b"}\n')
        self.assertEqual(dict(registry.get("lg.Tensor_out").dispatch),
                         {"CPU": "lg_out_cpu", "CUDA": "lg_out_cuda"})
        header, cpu = rendered_pointwise_files(registry)[:2]
        self.assertIn("TG_HOST_DEVICE inline bool compare(CompareOp op, T a, T b) {", header)
        self.assertIn("  return bool();\n}", header)
        self.assertIn("TensorMeta meta::lg_Tensor_out(const Tensor& self, const Tensor& other) { "
                      "return pointwise_math::compare_meta(CompareOp::Lg, self, other); }", cpu)
        self.assertIn("void native::lg_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) { "
                      "pointwise_math::compare_out_cpu<CompareOp::Lg>(self, other, out); }", cpu)

    def test_unary_family_needs_dtypes(self):
        self.assertErrors(UNARY_OUT + '  kernel: {family: unary, formula: "x"}\n',
                          (3, "'kernel' in 'cbrt.out' has no 'dtypes'; family unary runs "
                              "in one of: numeric, floating"))

    def test_a_new_unary_operator_with_a_vector_path(self):
        registry = self.load(UNARY_OUT + '  kernel: {family: unary, dtypes: floating, '
                                         'formula: "hd::exp(x)", vectorized: True}\n'
                             "- func: softsign.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
                             "  structured: True\n"
                             '  kernel: {family: unary, dtypes: numeric, formula: "x", meta: custom}\n')
        header, cpu, cuda = rendered_pointwise_files(registry)
        self.assertIn("enum class UnaryOp : uint8_t { Cbrt, Softsign };", header)
        self.assertIn("case UnaryOp::Cbrt: return true;\n    case UnaryOp::Softsign: return false;", header)
        self.assertRegex(header, r"inline T unary_vectorized\(UnaryOp op, T x\) \{\n  switch \(op\) \{\n"
                                 r"    case UnaryOp::Cbrt:\n#line 3 .*\n      return hd::exp\(x\);\n"
                                 r"#line \d+ .*\n    default:")
        self.assertIn('#include "cpu/unary_family_loop.h"', cpu)
        self.assertIn("void native::cbrt_out_cpu(const Tensor& self, const Tensor& out) { "
                      "pointwise_math::unary_out_cpu<UnaryOp::Cbrt>(self, out); }", cpu)
        self.assertIn("TensorMeta meta::cbrt_out(const Tensor& self) { "
                      "return pointwise_math::unary_meta(UnaryOp::Cbrt, self); }", cpu)
        self.assertNotIn("meta::softsign_out", cpu)  # meta: custom
        self.assertIn("void native::softsign_out_cuda(const Tensor& self, const Tensor& out) { "
                      "pointwise_math::unary_out_cuda(UnaryOp::Softsign, self, out); }", cuda)

    def test_binary_family_needs_dtypes(self):
        self.assertErrors(BINARY_OUT + '  kernel: {family: math_binary, formula: "a"}\n',
                          (3, "'kernel' in 'hypot.out' has no 'dtypes'; family math_binary runs "
                              "in one of: all, floating"))

    def test_dtype_class_the_family_lacks(self):
        self.assertErrors(UNARY_OUT + "  kernel:\n    family: float_unary\n    formula: x\n"
                                      "    dtypes: all\n",
                          (6, "dtype class 'all' in 'cbrt.out' is not one family float_unary "
                              "supports; expected one of: floating"))

    def test_kernel_with_dispatch(self):
        self.assertErrors(UNARY_OUT + "  kernel: {family: float_unary, formula: x}\n"
                                      "  dispatch: {CPU: cbrt_out_cpu}\n",
                          (4, "'cbrt.out' has both 'kernel' and 'dispatch'; a 'kernel' entry's "
                              "CPU and CUDA kernels are generated, so remove 'dispatch'"))

    def test_kernel_on_an_unstructured_out(self):
        self.assertErrors("- func: cbrt.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
                          "  kernel: {family: float_unary, formula: x}\n",
                          (2, "'kernel' on 'cbrt.out', which is not a structured out overload; "
                              "put it on the '.out' overload marked 'structured: True'"))

    def test_kernel_on_a_functional_overload(self):
        self.assertErrors("- func: cbrt(Tensor self) -> Tensor\n"
                          "  kernel: {family: float_unary, formula: x}\n",
                          (2, "'kernel' on 'cbrt', which is not a structured out overload; "
                              "put it on the '.out' overload marked 'structured: True'"))

    def test_signature_not_the_family_s(self):
        self.assertErrors("- func: cbrt.out(Tensor self, Scalar p, *, Tensor(a!) out) -> Tensor(a!)\n"
                          "  structured: True\n  kernel: {family: float_unary, formula: x}\n",
                          (3, "'cbrt.out' does not have the signature of kernel family "
                              "float_unary: expected 'cbrt.out(Tensor self, *, Tensor(a!) out) "
                              "-> Tensor(a!)'"))

    def test_two_operators_with_one_enum_constant(self):
        self.assertErrors(UNARY_OUT + "  kernel: {family: float_unary, formula: x}\n"
                          "- func: cbrt.out_(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
                          "  structured: True\n  kernel: {family: float_unary, formula: x}\n",
                          (6, "'cbrt.out_' does not have the signature of kernel family "
                              "float_unary: expected 'cbrt.out(Tensor self, *, Tensor(a!) out) "
                              "-> Tensor(a!)'"),
                          (6, "'cbrt.out_' and 'cbrt.out' both name FloatUnaryOp::Cbrt; "
                              "rename one"))


ALPHA_OUT = ("- func: rsub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)\n"
             "  structured: True\n")
POW_OUT = ("- func: xpow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)\n"
           "  structured: True\n")


class BinaryFamilyTest(SchemaTestCase):
    """The `binary` family (add, sub, mul, div, pow): three signatures, `alpha` in the formula
    exactly when the signature takes it, and the numeric dtype class guarded against bool."""

    def test_new_operators_of_each_signature(self):
        registry = self.load(ALPHA_OUT + '  kernel: {family: binary, dtypes: numeric, '
                                         'formula: "math::sub(b, math::mul(alpha, a))"}\n'
                             + BINARY_OUT + '  kernel: {family: binary, dtypes: floating, formula: "a / b"}\n'
                             + POW_OUT + '  kernel: {family: binary, dtypes: all, formula: "a"}\n')
        self.assertEqual(dict(registry.get("xpow.Tensor_Tensor_out").dispatch),
                         {"CPU": "xpow_out_cpu", "CUDA": "xpow_out_cuda"})
        header, cpu, cuda = rendered_pointwise_files(registry)
        self.assertIn("enum class BinaryOp : uint8_t { Rsub, Hypot, Xpow };", header)
        self.assertIn("TG_HOST_DEVICE inline T binary(BinaryOp op, T a, T b, T alpha) {", header)
        self.assertIn("case BinaryOp::Rsub: return true;\n    case BinaryOp::Hypot: return false;", header)
        self.assertRegex(header, r"case BinaryOp::Rsub:\n      if constexpr \(!std::is_same_v<T, bool>\) \{\n"
                                 r"#line 3 .*\n        return math::sub\(b, math::mul\(alpha, a\)\);")
        self.assertRegex(header, r"case BinaryOp::Xpow:\n#line 9 .*\n      return a;")
        self.assertIn("TensorMeta meta::rsub_out(const Tensor& self, const Tensor& other, const Scalar& alpha) { "
                      "return pointwise_math::binary_meta(BinaryOp::Rsub, self, other, alpha); }", cpu)
        self.assertIn("void native::rsub_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, "
                      "const Tensor& out) { pointwise_math::binary_out_cpu<BinaryOp::Rsub>(self, other, alpha, out); }",
                      cpu)
        self.assertIn("TensorMeta meta::xpow_Tensor_Tensor_out(const Tensor& self, const Tensor& exponent) { "
                      "return pointwise_math::binary_meta(BinaryOp::Xpow, self, exponent); }", cpu)
        self.assertIn("void native::hypot_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) { "
                      "pointwise_math::binary_out_cuda(BinaryOp::Hypot, self, other, out); }", cuda)
        self.assertIn('#include "cpu/binary_family_loop.h"', cpu)

    def test_formula_names_alpha_the_signature_lacks(self):
        self.assertErrors(BINARY_OUT + "  kernel:\n    family: binary\n    dtypes: all\n"
                                       '    formula: "a + alpha * b"\n',
                          (6, "the formula of 'hypot.out' names 'alpha', which its signature does not take"))

    def test_formula_ignores_alpha(self):
        self.assertErrors(ALPHA_OUT + "  kernel:\n    family: binary\n    dtypes: all\n"
                                      '    formula: "a - b"\n',
                          (6, "the formula of 'rsub.out' does not use its argument 'alpha'; write it "
                              "into the formula (add's: \"math::add(a, math::mul(alpha, b))\")"))

    def test_signature_not_one_of_the_family_s(self):
        self.assertErrors("- func: xpow.out(Tensor self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)\n"
                          "  structured: True\n"
                          '  kernel: {family: binary, dtypes: all, formula: "a"}\n',
                          (3, "'xpow.out' does not have the signature of kernel family binary: expected "
                              "'xpow.out(Tensor self, Tensor other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)' "
                              "or 'xpow.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)' "
                              "or 'xpow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) "
                              "-> Tensor(a!)'"))

    def test_binary_family_needs_dtypes(self):
        self.assertErrors(BINARY_OUT + '  kernel: {family: binary, formula: "a"}\n',
                          (3, "'kernel' in 'hypot.out' has no 'dtypes'; family binary runs "
                              "in one of: all, numeric, floating"))


TWIN = ("- func: hyp.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
        "  variants: function\n")
TWIN_INPLACE = ("- func: hyp_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)\n"
                "  variants: function\n")
SCALAR = "- func: hyp.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor\n"
SCALAR_INPLACE = "- func: hyp_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)\n"


class ScalarOverloadKeyTest(SchemaTestCase):
    """`scalar_overload_of:` (codegen/scalar_overloads.py): the kernel is generated and every
    mistake is a file:line error."""

    def rendered(self, registry) -> str:
        with tempfile.TemporaryDirectory() as out:
            render.render_all(registry, REPO_ROOT / "templates", out)
            return (Path(out) / "ScalarOverloads.cpp").read_text()

    def test_a_scalar_overload_needs_only_its_entry(self):
        registry = self.load(TWIN + TWIN_INPLACE + SCALAR + "  scalar_overload_of: hyp.Tensor\n"
                             + SCALAR_INPLACE + "  scalar_overload_of: hyp_.Tensor\n")
        self.assertEqual(dict(registry.get("hyp.Scalar").dispatch), {"CompositeImplicitAutograd": "hyp_scalar"})
        self.assertEqual(dict(registry.get("hyp_.Scalar").dispatch), {"CompositeImplicitAutograd": "hyp_scalar_"})
        self.assertFalse(registry.get("hyp.Scalar").dispatch_defaulted)
        text = self.rendered(registry)
        self.assertIn("Tensor native::hyp_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) { "
                      "return ops::hyp_Tensor::call(self, wrapped_scalar_tensor(other), alpha); }", text)
        self.assertIn("Tensor native::hyp_scalar_(const Tensor& self, const Scalar& other, const Scalar& alpha) {\n"
                      "  ops::hyp__Tensor::call(self, wrapped_scalar_tensor(other), alpha);\n  return self;\n}", text)

    def test_unknown_twin(self):
        self.assertErrors(TWIN + SCALAR + "  scalar_overload_of: hyp.Tensr\n",
                          (4, "'scalar_overload_of' of 'hyp.Scalar' names 'hyp.Tensr', which is not "
                              "declared; did you mean 'hyp.Tensor'?"))

    def test_not_a_string(self):
        self.assertErrors(TWIN + SCALAR + "  scalar_overload_of: [hyp.Tensor]\n",
                          (4, "'scalar_overload_of' in 'hyp.Scalar' must be a non-empty string, found [hyp.Tensor]"))

    def test_twin_of_another_kind_or_arguments(self):
        expected = ("'hyp.Scalar' is not a Scalar overload of '{0}': expected the arguments of '{0}' "
                    "({1}) with one Tensor a Scalar, and both functional or both in place")
        self.assertErrors(TWIN_INPLACE + SCALAR + "  scalar_overload_of: hyp_.Tensor\n",
                          (4, expected.format("hyp_.Tensor", "Tensor(a!) self, Tensor other, Scalar alpha=1")))
        self.assertErrors("- func: hyp.Tensor(Tensor self, Tensor other) -> Tensor\n"
                          + SCALAR + "  scalar_overload_of: hyp.Tensor\n",
                          (3, expected.format("hyp.Tensor", "Tensor self, Tensor other")))

    def test_with_dispatch(self):
        self.assertErrors(TWIN + SCALAR + "  scalar_overload_of: hyp.Tensor\n"
                          "  dispatch: {CompositeImplicitAutograd: hyp_scalar}\n",
                          (5, "'hyp.Scalar' has both 'scalar_overload_of' and 'dispatch'; its kernel "
                              "is generated, so remove 'dispatch'"))

    def test_on_a_structured_entry(self):
        self.assertErrors(TWIN + "- func: hyp.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) "
                          "-> Tensor(a!)\n  structured: True\n  dispatch: {CPU: hyp_out_cpu}\n"
                          "  scalar_overload_of: hyp.Tensor\n",
                          (6, "'scalar_overload_of' on 'hyp.out', which is structured; a Scalar overload "
                              "calls its Tensor twin and has no kernel of its own"))


if __name__ == "__main__":
    unittest.main()
