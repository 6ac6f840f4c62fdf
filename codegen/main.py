"""tensorgen's generator: schemas/*.yaml in, C++ glue out.

    python3 codegen/main.py --schemas FILE... --out-dir DIR [--templates DIR] [--check]

Loads and validates every schema file, then renders every template into DIR, rewriting only
files whose text changed. `--check` stops after validation. Every mistake in the schemas is
printed as `file:line: message`, one per line, on stderr, and the exit status is 1; a user
mistake never produces a Python traceback (an internal bug still does).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `codegen` importable from any cwd
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jinja2  # noqa: E402

from codegen.errors import SchemaErrors  # noqa: E402
from codegen.registry import load_registry  # noqa: E402
from codegen.render import render_all  # noqa: E402

DEFAULT_TEMPLATES = Path(__file__).resolve().parent.parent / "templates"

__all__ = ["main", "render_all"]


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="codegen/main.py",
        description="Generate tensorgen's C++ glue from the operator schemas.")
    parser.add_argument("--schemas", nargs="+", required=True, metavar="FILE",
                        help="schema YAML files (a directory stands for its *.yaml files)")
    parser.add_argument("--out-dir", metavar="DIR",
                        help="where generated files go (required unless --check)")
    parser.add_argument("--templates", metavar="DIR", default=str(DEFAULT_TEMPLATES),
                        help="Jinja2 templates (default: the repository's templates/)")
    parser.add_argument("--check", action="store_true",
                        help="only load and validate the schemas; write nothing")
    arguments = parser.parse_args(argv)
    if not arguments.check and not arguments.out_dir:
        parser.error("--out-dir is required unless --check is given")
    return arguments


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(sys.argv[1:] if argv is None else argv)
    try:
        registry = load_registry(arguments.schemas)
        if not arguments.check:
            render_all(registry, arguments.templates, arguments.out_dir)
    except SchemaErrors as failure:
        for error in failure.errors:
            print(error, file=sys.stderr)
        return 1
    except jinja2.TemplateSyntaxError as error:
        print(f"{error.filename or error.name}:{error.lineno}: {error.message}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"{error.filename or 'codegen'}: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
