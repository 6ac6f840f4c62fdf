"""`#line` directives that make a compiler error in a derivative formula name its schema.

Note [Formulas keep their line]
A derivative formula is C++ pasted from a schema into AutogradFunctions_*.cpp (backward) or
VariableType_*.cpp (forward mode). The generated code puts `#line N "schemas/x.yaml"` before
the pasted line, so an error in the formula is reported at the schema's file and line, and
`#line M "generated/X.cpp"` after it, so later errors point at the generated file again.
Templates write RESUME_GENERATED for the second directive, because only the finished text
knows its own line numbers; `resolve_resume_markers` fills them in when the file is written.
The schema's path is the one the generator was given, normalised (Meson gives it relative to
the build directory, where the compiler runs too); the generated file's is relative to the
current directory, so `--out-dir generated` and `--out-dir /abs/build/generated` run from the
build directory write the same text ("generated/X.cpp", as the compiler names it), which
keeps ccache hits across checkouts and lets a test regenerate elsewhere byte-identically.
"""

from __future__ import annotations

import os

from codegen.errors import Location

RESUME_GENERATED = "#line tg-resume-generated-file"


def c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def line_directive(loc: Location) -> str:
    """The directive that makes the next line count as `loc`'s line of `loc`'s file."""
    return f"#line {loc.line} {c_string(os.path.normpath(loc.file))}"


def resolve_resume_markers(text: str, path: str) -> str:
    """Replaces each RESUME_GENERATED line by `#line <next line> "<path>"`, the path made
    relative to the current directory."""
    if RESUME_GENERATED not in text:
        return text
    name = c_string(os.path.relpath(path))
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if line == RESUME_GENERATED:
            lines[index] = f"#line {index + 2} {name}"
    return "\n".join(lines)
