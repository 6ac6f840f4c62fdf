"""Typed reads from located YAML values; each raises a SchemaError at the value's line.

`Node` bundles a LocatedMap with its file so that a key's location is one call away, and
keeps track of which keys were read: whatever is left over is an unknown key.
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterable, Optional

from codegen.errors import ErrorCollector, Location, SchemaError, describe_yaml_value, suggestion
from codegen.loader import LocatedList, LocatedMap

CPP_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class Node:
    """A mapping being read. Read keys with `take`; `report_unknown` reports the rest."""

    def __init__(self, mapping: LocatedMap, path: str):
        self.mapping = mapping
        self.path = path
        self._unread = list(mapping)

    @property
    def loc(self) -> Location:
        return Location(self.path, self.mapping.line)

    def loc_of(self, key: Any) -> Location:
        return Location(self.path, self.mapping.line_of(key))

    def has(self, key: str) -> bool:
        return key in self.mapping

    def take(self, key: str, default: Any = None) -> Any:
        if key in self._unread:
            self._unread.remove(key)
        return self.mapping.get(key, default)

    def unread(self) -> list[Any]:
        return list(self._unread)

    def report_unknown(self, errors: ErrorCollector, what: str, known: Iterable[str],
                       context: str = "") -> None:
        """One error per key not taken: "unknown <what> 'x'<context>; did you mean 'y'?"."""
        known = list(known)
        for key in self._unread:
            errors.error(self.loc_of(key),
                         f"unknown {what} '{key}'{context}{suggestion(str(key), known, list_all_below=max(12, len(known)))}")


def item_loc(path: str, container: Any, index: int) -> Location:
    if isinstance(container, LocatedList):
        return Location(path, container.line_of(index))
    return Location(path, getattr(container, "line", 0))


def expect_mapping(value: Any, loc: Location, what: str) -> LocatedMap:
    if not isinstance(value, LocatedMap):
        raise SchemaError(loc, f"{what} must be a mapping, found {describe_yaml_value(value)}")
    return value


def expect_list(value: Any, loc: Location, what: str) -> LocatedList:
    if not isinstance(value, LocatedList):
        raise SchemaError(loc, f"{what} must be a list, found {describe_yaml_value(value)}")
    return value


def expect_bool(value: Any, loc: Location, what: str) -> bool:
    if not isinstance(value, bool):
        raise SchemaError(loc, f"{what} must be True or False, found {describe_yaml_value(value)}")
    return value


def expect_string(value: Any, loc: Location, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SchemaError(loc, f"{what} must be a non-empty string, "
                               f"found {describe_yaml_value(value)}")
    return value.strip()


def expect_number(value: Any, loc: Location, what: str) -> float:
    """A finite number. YAML 1.1 reads `1e-5` as a string, so numeric strings count too."""
    if isinstance(value, bool):
        number: Optional[float] = None
    elif isinstance(value, (int, float)):
        number = float(value)
    else:
        try:
            number = float(str(value))
        except ValueError:
            number = None
    if number is None or not math.isfinite(number):
        raise SchemaError(loc, f"{what} must be a number, found {describe_yaml_value(value)}")
    return number


def name_list(value: Any, loc: Location, path: str, what: str) -> list[tuple[str, Location]]:
    """A comma-separated string ("function, method") or a list of strings, as
    (name, location) pairs. Empty names are errors."""
    if isinstance(value, str):
        names = [(part.strip(), loc) for part in value.split(",")]
    elif isinstance(value, LocatedList):
        names = []
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise SchemaError(item_loc(path, value, index),
                                  f"{what} must be names, found {describe_yaml_value(item)}")
            names.append((item.strip(), item_loc(path, value, index)))
    else:
        raise SchemaError(loc, f"{what} must be a name, a comma-separated list of names or a "
                               f"list, found {describe_yaml_value(value)}")
    for name, name_loc in names:
        if not name:
            raise SchemaError(name_loc, f"{what} has an empty name in {value!r}")
    return names


def freeze(value: Any) -> Any:
    """YAML lists become tuples, so that the model stays hashable and immutable."""
    if isinstance(value, list):
        return tuple(freeze(item) for item in value)
    return value
