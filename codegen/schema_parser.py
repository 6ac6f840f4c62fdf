"""Parses PyTorch function-schema strings into the model's FunctionSchema.

Grammar (whitespace between tokens is free):

    schema    := NAME ['.' NAME] '(' [argument (',' argument)*] ')' '->' returns
    argument  := '*' | type NAME ['=' default]        -- arguments after '*' are keyword-only
    type      := BASE ['(' NAME ['!'] ')'] ['?'] ['[' [INT] ']' ['?']]
    default   := value | '[' [value (',' value)*] ']'
    value     := NUMBER | ['-'] NAME | STRING
    returns   := '(' [return (',' return)*] ')' | return
    return    := type [NAME]

A malformed string raises SchemaSyntaxError with the 1-based column within the string and
what was expected versus found; the caller adds the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from codegen.errors import Location, suggestion
from codegen.model import BASE_TYPES, Annotation, Argument, FunctionSchema, Return, SchemaType


class SchemaSyntaxError(Exception):
    """A malformed schema string; `message` already names the column."""

    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.message = message
        self.column = column


@dataclass(frozen=True)
class _Token:
    kind: str    # ident | number | string | punct | arrow | end
    text: str
    column: int  # 1-based

    def describe(self) -> str:
        return "end of schema" if self.kind == "end" else f"'{self.text}'"


_TOKEN_PATTERN = re.compile(r"""
    (?P<space>\s+)
  | (?P<arrow>->)
  | (?P<number>-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<punct>[()\[\],.?!*=-])
""", re.VERBOSE)


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while position < len(text):
        match = _TOKEN_PATTERN.match(text, position)
        if match is None:
            character = text[position]
            if character in "\"'":
                raise SchemaSyntaxError(f"unterminated string at column {position + 1}",
                                        position + 1)
            raise SchemaSyntaxError(
                f"unexpected character '{character}' at column {position + 1}", position + 1)
        if match.lastgroup != "space":
            tokens.append(_Token(match.lastgroup, match.group(), position + 1))
        position = match.end()
    tokens.append(_Token("end", "", len(text) + 1))
    return tokens


class _Parser:
    def __init__(self, text: str, loc: Location):
        self.tokens = _tokenize(text)
        self.index = 0
        self.loc = loc

    # Token helpers ---------------------------------------------------------------------

    @property
    def current(self) -> _Token:
        return self.tokens[self.index]

    def advance(self) -> _Token:
        token = self.current
        if token.kind != "end":
            self.index += 1
        return token

    def at(self, text: str) -> bool:
        return self.current.kind in ("punct", "arrow") and self.current.text == text

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.advance()
            return True
        return False

    def fail(self, expected: str, token: Optional[_Token] = None) -> SchemaSyntaxError:
        token = token or self.current
        return SchemaSyntaxError(
            f"expected {expected} at column {token.column}, found {token.describe()}",
            token.column)

    def expect(self, text: str, expected: Optional[str] = None) -> _Token:
        if not self.at(text):
            raise self.fail(expected or f"'{text}'")
        return self.advance()

    def expect_ident(self, expected: str) -> _Token:
        if self.current.kind != "ident":
            raise self.fail(expected)
        return self.advance()

    # Grammar ---------------------------------------------------------------------------

    def schema(self) -> FunctionSchema:
        name = self.expect_ident("an operator name").text
        overload = ""
        if self.accept("."):
            overload = self.expect_ident("an overload name").text
        self.expect("(", "'(' or '.'" if not overload else "'('")
        arguments = self.arguments()
        self.expect("->")
        returns = self.returns()
        if self.current.kind != "end":
            raise self.fail("end of schema")
        return FunctionSchema(name, overload, tuple(arguments), tuple(returns), self.loc)

    def arguments(self) -> list[Argument]:
        arguments: list[Argument] = []
        if self.accept(")"):
            return arguments
        kwarg_only = False
        while True:
            if self.at("*"):
                star = self.advance()
                if kwarg_only:
                    raise SchemaSyntaxError(f"unexpected second '*' at column {star.column}",
                                            star.column)
                kwarg_only = True
                if not self.at(","):
                    raise self.fail("',' after '*'")
            else:
                arguments.append(self.argument(kwarg_only))
            if self.accept(")"):
                return arguments
            self.expect(",", "',' or ')'")
            if self.at(")"):
                raise self.fail("an argument")

    def argument(self, kwarg_only: bool) -> Argument:
        type_ = self.type("an argument type")
        name = self.expect_ident("an argument name").text
        default = self.default() if self.accept("=") else None
        return Argument(type_, name, default, kwarg_only, self.loc)

    def type(self, expected: str) -> SchemaType:
        base = self.expect_ident(expected)
        if base.text not in BASE_TYPES:
            raise SchemaSyntaxError(
                f"unknown type '{base.text}' at column {base.column}"
                + suggestion(base.text, BASE_TYPES), base.column)
        annotation = None
        if self.at("("):
            parenthesis = self.advance()
            if base.text != "Tensor":
                raise SchemaSyntaxError(
                    f"alias annotation on '{base.text}' at column {parenthesis.column}; "
                    "only Tensor can alias", parenthesis.column)
            alias_set = self.expect_ident("an alias set such as 'a'").text
            is_write = self.accept("!")
            self.expect(")", "'!' or ')'" if not is_write else "')'")
            annotation = Annotation(alias_set, is_write)
        question = self.accept("?")
        is_list, list_size, optional = False, None, False
        if self.accept("["):
            is_list = True
            if self.current.kind == "number":
                size = self.advance()
                if not size.text.isdigit() or int(size.text) == 0:
                    raise SchemaSyntaxError(
                        f"list size must be a positive integer at column {size.column}, "
                        f"found '{size.text}'", size.column)
                list_size = int(size.text)
            self.expect("]", "a list size or ']'")
            optional = self.accept("?")
        return SchemaType(base.text, annotation, element_optional=question and is_list,
                          is_list=is_list, list_size=list_size,
                          optional=optional or (question and not is_list))

    def default(self) -> str:
        if self.accept("["):
            items: list[str] = []
            if not self.accept("]"):
                while True:
                    items.append(self.value())
                    if self.accept("]"):
                        break
                    self.expect(",", "',' or ']'")
            return "[" + ", ".join(items) + "]"
        return self.value()

    def value(self) -> str:
        token = self.current
        if token.kind in ("number", "ident", "string"):
            return self.advance().text
        if self.at("-"):
            self.advance()
            name = self.expect_ident("a number or a name after '-'")
            return "-" + name.text
        raise self.fail("a default value")

    def returns(self) -> list[Return]:
        if not self.accept("("):
            return [self.single_return()]
        returns: list[Return] = []
        if self.accept(")"):
            return returns
        while True:
            returns.append(self.single_return())
            if self.accept(")"):
                return returns
            self.expect(",", "',' or ')'")

    def single_return(self) -> Return:
        type_ = self.type("a return type")
        name = self.advance().text if self.current.kind == "ident" else None
        return Return(type_, name, self.loc)


def parse_schema(text: str, loc: Location) -> FunctionSchema:
    """Parses one schema string; raises SchemaSyntaxError when it is malformed."""
    return _Parser(text, loc).schema()


def schema_display_name(text: str) -> str:
    """What a message calls a schema that may not parse: the text before '(' ("add.Tensor"),
    or the whole text when there is no '('."""
    head = text.split("(", 1)[0].strip()
    return head or text.strip()
