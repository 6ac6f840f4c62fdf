"""Loads a schema YAML file, keeping the line of every entry, key and list item.

Mappings load as `LocatedMap` (a dict that knows its own line and the line of each key),
sequences as `LocatedList` (a list that knows its line and each item's line). Scalars stay
plain Python values; their lines are the lines of the key or item that holds them.
A YAML syntax error becomes a `file:line:` SchemaError, never a traceback.
"""

from __future__ import annotations

from typing import Any, Optional

import yaml

from codegen.errors import ErrorCollector, Location, SchemaError


class LocatedMap(dict):
    """A YAML mapping. Invariant: key_lines.keys() == value_lines.keys() == self.keys()."""

    def __init__(self, line: int):
        super().__init__()
        self.line = line
        self.key_lines: dict[Any, int] = {}
        self.value_lines: dict[Any, int] = {}

    def line_of(self, key: Any) -> int:
        return self.key_lines.get(key, self.line)

    def value_line_of(self, key: Any) -> int:
        """The line where the key's value text starts: the key's line for `key: value`, the
        next one for a block scalar (`key: |`). Generated code cites it in `#line`."""
        return self.value_lines.get(key, self.line_of(key))


class LocatedList(list):
    """A YAML sequence. Invariant: len(item_lines) == len(self)."""

    def __init__(self, line: int):
        super().__init__()
        self.line = line
        self.item_lines: list[int] = []

    def line_of(self, index: int) -> int:
        return self.item_lines[index] if 0 <= index < len(self.item_lines) else self.line


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _text_line(node: yaml.Node) -> int:
    """The first line of a value's text: a block scalar's starts below its `|` or `>`."""
    if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
        return _line(node) + 1
    return _line(node)


class _LocatingLoader(yaml.SafeLoader):
    """SafeLoader whose mappings and sequences remember where they came from.
    Duplicate keys, which PyYAML would silently overwrite, are recorded."""

    def __init__(self, stream: str):
        super().__init__(stream)
        self.duplicate_keys: list[tuple[Any, int, int]] = []  # (key, line, first line)


def _construct_map(loader: _LocatingLoader, node: yaml.MappingNode):
    data = LocatedMap(_line(node))
    yield data
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark,
                "found an unhashable key", key_node.start_mark) from None
        if key in data:
            loader.duplicate_keys.append((key, _line(key_node), data.key_lines[key]))
        data[key] = loader.construct_object(value_node, deep=True)
        data.key_lines[key] = _line(key_node)
        data.value_lines[key] = _text_line(value_node)


def _construct_list(loader: _LocatingLoader, node: yaml.SequenceNode):
    data = LocatedList(_line(node))
    yield data
    for item_node in node.value:
        data.append(loader.construct_object(item_node, deep=True))
        data.item_lines.append(_line(item_node))


_LocatingLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_LocatingLoader.add_constructor("tag:yaml.org,2002:seq", _construct_list)


def _syntax_error(path: str, text: str, error: yaml.YAMLError) -> SchemaError:
    if isinstance(error, yaml.MarkedYAMLError):
        mark = error.problem_mark or error.context_mark
        problem = error.problem or error.context or "invalid YAML"
        if problem.startswith("but ") and error.context:  # "expected X" + "but found Y"
            problem = f"{error.context}, {problem}"
        if mark is None:
            return SchemaError(Location(path, 0), f"invalid YAML: {problem}")
        return SchemaError(Location(path, mark.line + 1),
                           f"invalid YAML: {problem} (column {mark.column + 1})")
    if isinstance(error, yaml.reader.ReaderError):
        line = text.count("\n", 0, error.position) + 1
        character = error.character
        shown = f"U+{character:04X}" if isinstance(character, int) else repr(character)
        return SchemaError(Location(path, line), f"invalid YAML: unacceptable character {shown}")
    return SchemaError(Location(path, 0), f"invalid YAML: {error}")


# No schema needs values nested deeper than this; deeper ones are refused before anything
# recursive (the model's parsers, messages quoting a value) sees them.
MAX_NESTING = 32


def _too_deep(document: Any) -> Optional[int]:
    """The line of the first mapping or list nested deeper than MAX_NESTING, else None.
    Iterative, so that the check itself cannot exhaust Python's stack."""
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if not isinstance(value, (LocatedMap, LocatedList)):
            continue
        if depth > MAX_NESTING:
            return value.line
        children = value.values() if isinstance(value, LocatedMap) else value
        stack.extend((child, depth + 1) for child in children)
    return None


def load_yaml_text(text: str, path: str, errors: ErrorCollector) -> Optional[Any]:
    """Parses `text` (the contents of `path`); on a syntax error reports it and returns None."""
    loader = None
    try:
        loader = _LocatingLoader(text)  # checks that every character is printable
        try:
            document = loader.get_single_data()
        finally:
            loader.dispose()
    except yaml.YAMLError as error:
        errors.add(_syntax_error(path, text, error))
        return None
    except RecursionError:
        # PyYAML's composer recurses once per level: report where the reader had got to.
        line = loader.line + 1 if loader is not None else 0
        errors.error(Location(path, line), f"values nested too deeply (more than {MAX_NESTING} levels)")
        return None
    deep_line = _too_deep(document)
    if deep_line is not None:
        errors.error(Location(path, deep_line), f"values nested too deeply (more than {MAX_NESTING} levels)")
        return None
    for key, line, first_line in loader.duplicate_keys:
        errors.error(Location(path, line), f"duplicate key '{key}' (first at line {first_line})")
    return document


def load_yaml_file(path: str, errors: ErrorCollector) -> Optional[Any]:
    """Reads and parses one schema file; a file that cannot be read is reported, not raised."""
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError as error:
        errors.error(Location(path, 0), f"cannot read schema file: {error.strerror or error}")
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        errors.error(Location(path, line), f"schema file is not UTF-8: {error.reason} "
                                           f"(byte 0x{data[error.start]:02x} at column {column})")
        return None
    return load_yaml_text(text, path, errors)
