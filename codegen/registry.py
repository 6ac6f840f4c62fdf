"""The operator registry: every schema file loaded, parsed and validated into one model.

`load_registry` is the generator's front end in one call. It either returns a Registry in
which every rule holds, or raises SchemaErrors carrying every mistake in every file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional, Sequence

from codegen.errors import ErrorCollector
from codegen.loader import load_yaml_file
from codegen.model import FrozenDict, NativeFunction, StructuredGroup, group_structured
from codegen.parse_entries import ParsedEntries, parse_document
from codegen.validate import validate


@dataclass(frozen=True)
class Registry:
    """All operators in declaration order (files in the order given, entries in file order).
    Invariant: full names are unique; by_name[f.full_name] is f."""

    functions: tuple[NativeFunction, ...]
    structured_groups: tuple[StructuredGroup, ...]
    by_name: FrozenDict

    @staticmethod
    def of(functions: Sequence[NativeFunction]) -> "Registry":
        functions = tuple(functions)
        return Registry(functions, group_structured(functions),
                        FrozenDict((f.full_name, f) for f in functions))

    def get(self, full_name: str) -> Optional[NativeFunction]:
        return self.by_name.get(full_name)

    def __iter__(self) -> Iterator[NativeFunction]:
        return iter(self.functions)

    def __len__(self) -> int:
        return len(self.functions)


def expand_schema_paths(paths: Sequence[str]) -> list[str]:
    """Files as given; a directory stands for its *.yaml files, sorted."""
    expanded: list[str] = []
    for path in paths:
        if Path(path).is_dir():
            expanded += sorted(str(p) for p in Path(path).glob("*.yaml"))
        else:
            expanded.append(path)
    return expanded


def load_registry(paths: Sequence[str]) -> Registry:
    """Loads, parses and validates every schema file; raises SchemaErrors on any mistake."""
    errors = ErrorCollector()
    parsed = ParsedEntries()
    for path in expand_schema_paths(paths):
        document = load_yaml_file(path, errors)
        if document is not None:
            parse_document(document, path, errors, parsed)
    validate(parsed, errors)
    errors.raise_if_any()
    return Registry.of(parsed.functions)
