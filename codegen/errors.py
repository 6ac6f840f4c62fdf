"""Schema mistakes, reported as `file:line: message`.

A `SchemaError` is one mistake at one place. The generator never stops at the first one:
every stage reports into an `ErrorCollector`, and the driver prints them all, sorted by
file and line, before exiting with status 1.
"""

from __future__ import annotations

import contextlib
import difflib
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional


@dataclass(frozen=True, order=True)
class Location:
    """A place in a schema file. `line` is 1-based; 0 means "the file as a whole"."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line > 0 else self.file


class SchemaError(Exception):
    """One mistake in a schema file."""

    def __init__(self, loc: Location, message: str):
        super().__init__(f"{loc}: {message}")
        self.loc = loc
        self.message = message

    def __str__(self) -> str:
        return f"{self.loc}: {self.message}"


class SchemaErrors(Exception):
    """Every mistake found in a run; raised once, after all of them were collected."""

    def __init__(self, errors: Iterable[SchemaError]):
        self.errors = list(errors)
        super().__init__("\n".join(str(e) for e in self.errors))


class ErrorCollector:
    """Accumulates SchemaErrors so that one run reports every mistake, not just the first."""

    def __init__(self) -> None:
        self._errors: list[SchemaError] = []

    def error(self, loc: Location, message: str) -> None:
        self._errors.append(SchemaError(loc, message))

    def add(self, error: SchemaError) -> None:
        self._errors.append(error)

    @contextlib.contextmanager
    def collecting(self) -> Iterator[None]:
        """Runs a block; a SchemaError it raises is recorded instead of propagating."""
        try:
            yield
        except SchemaError as error:
            self.add(error)

    @property
    def errors(self) -> list[SchemaError]:
        """The errors sorted by file, then line, then the order they were found; no repeats."""
        unique = list(dict.fromkeys((e.loc.file, e.loc.line, e.message) for e in self._errors))
        order = {key: index for index, key in enumerate(unique)}
        unique.sort(key=lambda key: (key[0], key[1], order[key]))
        return [SchemaError(Location(file, line), message) for file, line, message in unique]

    def __len__(self) -> int:
        return len(self._errors)

    def __bool__(self) -> bool:
        return bool(self._errors)

    def raise_if_any(self) -> None:
        if self._errors:
            raise SchemaErrors(self.errors)


def did_you_mean(word: str, candidates: Iterable[str]) -> Optional[str]:
    """The candidate closest to `word` (case-insensitively), or None when none is close."""
    by_folded: dict[str, str] = {}
    for candidate in candidates:
        by_folded.setdefault(candidate.lower(), candidate)
    matches = difflib.get_close_matches(str(word).lower(), list(by_folded), n=1, cutoff=0.6)
    return by_folded[matches[0]] if matches else None


def suggestion(word: str, candidates: Iterable[str], list_all_below: int = 12) -> str:
    """A message suffix: "; did you mean 'X'?" when one is close, else the valid choices
    when there are few of them, else nothing."""
    candidates = list(candidates)
    match = did_you_mean(word, candidates)
    if match is not None:
        return f"; did you mean '{match}'?"
    if 0 < len(candidates) <= list_all_below:
        return "; expected one of: " + ", ".join(candidates)
    return ""


def _flow(value: object) -> str:
    """A value in YAML flow style: [2, -1], {self: [3]}, True, text."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flow(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    return str(value)


def describe_yaml_value(value: object, longest: int = 40) -> str:
    """How a YAML value reads in a message: "'text'", "5", "[2, -1]", or "a list" and
    "a mapping" when the value is too long to quote."""
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return f"'{value}'"
    text = _flow(value)
    if len(text) <= longest or not isinstance(value, (dict, list)):
        return text
    return "a mapping" if isinstance(value, dict) else "a list"
