"""Mutation fuzzer for the generator's front end: the schema loader (YAML, entries, validation,
formula checks), the schema-string parser and the formula parser.

Every mutated input must load, or fail with SchemaErrors whose every line reads
`file[:line]: message`; any other exception (a traceback a user would see) is a failure,
printed with the input that caused it (also saved under --artifacts).

Stdlib only, deterministic for a given --seed. CI runs the default budget; a longer run:
    .venv/bin/python tests/fuzz/fuzz_schema_loader.py --iterations 100000 --seed 7
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
import traceback
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT))

from codegen.errors import Location, SchemaError, SchemaErrors  # noqa: E402
from codegen.formula_expr import parse_formula  # noqa: E402
from codegen.registry import load_registry  # noqa: E402
from codegen.schema_parser import SchemaSyntaxError, parse_schema  # noqa: E402

# Pieces a mutation splices in: YAML structure, schema syntax, formula syntax, and bytes that
# are not text.
TOKENS = [
    "[", "]", "{", "}", ":", "- ", "  ", "\n", "'", '"', "&a ", "*a", "!!python/object ", "? ", "|",
    "(", ")", "->", "Tensor", "Tensor(a!)", "?", "[]", "int[2]", "*, ", "=", "None", "__", ".",
    "grad", "self", "result", ";", "std::system(", "1e400", "-", "\t", "\x00", "\xff", "\u2028",
    "variants: []", "dispatch:", "derivatives:", "conformance:", "func: ", "structured: True",
    "[" * 100, "[" * 1200, "{a: " * 50, "[" * 1200 + "]" * 1200, "{a: " * 400 + "}" * 400,
]
LINE_RE = re.compile(r"^.+?(:\d+)?: .+", re.S)


def mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(8)
        position = rng.randrange(len(text) + 1)
        if choice == 0 and text:  # delete a span
            end = min(len(text), position + rng.randint(1, 20))
            text = text[:position] + text[end:]
        elif choice == 1:  # insert a token
            text = text[:position] + rng.choice(TOKENS) + text[position:]
        elif choice == 2 and text:  # replace a character
            text = text[:position] + chr(rng.randrange(0x20, 0x7f)) + text[position + 1:]
        elif choice == 3:  # duplicate a line
            lines = text.split("\n")
            index = rng.randrange(len(lines))
            lines.insert(index, lines[index])
            text = "\n".join(lines)
        elif choice == 4:  # drop a line
            lines = text.split("\n")
            del lines[rng.randrange(len(lines))]
            text = "\n".join(lines)
        elif choice == 5:  # swap two lines
            lines = text.split("\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif choice == 6:  # replace a value by a deeply nested one
            lines = text.split("\n")
            index = rng.randrange(len(lines))
            if ": " in lines[index]:
                depth = rng.choice((3, 40, 400, 1500))
                key = lines[index].split(": ", 1)[0]
                lines[index] = f"{key}: " + "[" * depth + "x" + "]" * depth
            text = "\n".join(lines)
        else:  # change indentation
            lines = text.split("\n")
            index = rng.randrange(len(lines))
            lines[index] = " " * rng.randint(0, 6) + lines[index].lstrip()
            text = "\n".join(lines)
    return text


class Failure(Exception):
    pass


def check_file(path: Path) -> None:
    try:
        load_registry([str(path)])
    except SchemaErrors as errors:
        for error in errors.errors:
            if not LINE_RE.match(str(error)) or not str(error).startswith(str(path)):
                raise Failure(f"error without file:line: {error!r}")
    except Exception:  # noqa: BLE001: anything else is what the fuzzer looks for
        raise Failure(traceback.format_exc())


def check_string(parse, text: str) -> None:
    try:
        parse(text)
    except (SchemaError, SchemaSyntaxError):
        pass
    except Exception:  # noqa: BLE001
        raise Failure(traceback.format_exc())


def corpus() -> tuple[list[str], list[str], list[str]]:
    """Schema files, schema strings and formulas from the repository's schemas."""
    files = [p.read_text(encoding="utf-8") for p in sorted((REPO_ROOT / "schemas").glob("*.yaml"))]
    funcs = [m.group(1) for text in files for m in re.finditer(r"^- func: (.+)$", text, re.M)]
    formulas = [m.group(1) for text in files
                for m in re.finditer(r"^    (?:[\w, ]+): (.+)$", text, re.M)]
    return files, funcs, formulas


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=200,
                        help="mutated schema files to load (strings: 5 times as many)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--artifacts", default=None, help="folder for failing inputs")
    arguments = parser.parse_args(argv)
    rng = random.Random(arguments.seed)
    files, funcs, formulas = corpus()
    location = Location("fuzz", 1)
    failures = 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tg-fuzz-") as folder:
        artifacts = Path(arguments.artifacts or folder)
        artifacts.mkdir(parents=True, exist_ok=True)
        for iteration in range(arguments.iterations):
            cases = [("file", mutate(rng.choice(files), rng))]
            for _ in range(5):
                cases.append(("schema", mutate(rng.choice(funcs), rng)))
                cases.append(("formula", mutate(rng.choice(formulas), rng)))
            for kind, text in cases:
                try:
                    if kind == "file":
                        path = Path(folder) / "mutated.yaml"
                        path.write_text(text, encoding="utf-8", errors="surrogateescape")
                        check_file(path)
                    elif kind == "schema":
                        check_string(lambda t: parse_schema(t, location), text)
                    else:
                        check_string(lambda t: parse_formula(t, location), text)
                except Failure as failure:
                    failures += 1
                    saved = artifacts / f"failure-{kind}-{iteration}.txt"
                    saved.write_text(text, encoding="utf-8", errors="surrogateescape")
                    print(f"FAIL ({kind}, iteration {iteration}, input saved to {saved}):\n{failure}")
    elapsed = time.monotonic() - started
    total = arguments.iterations * 11
    print(f"fuzz_schema_loader: {total} inputs ({arguments.iterations} files) in {elapsed:.1f} s, "
          f"seed {arguments.seed}: {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
