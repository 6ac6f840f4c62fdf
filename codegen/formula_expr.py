"""The expressions schemas embed in C++: derivative formulas and conformance references.

The generator pastes these into generated C++, so each is first parsed with a small grammar
(names, `::`-qualified names, calls, member calls, indexing, unary and binary operators, the
conditional operator, number, string and bool literals) and every name it reads or calls is
checked against what the place it goes to defines. Anything else (`;`, `=`, braces, lambdas,
a name nothing defines) is refused as a SchemaError at the schema's `file:line`, so that a
formula can neither run a statement of its own nor fail only as a C++ error in a generated
file.

Grammar (C++ precedence, highest last):
    expr        := logical_or ('?' expr ':' expr)?
    logical_or  := logical_and ('||' logical_and)*
    logical_and := equality ('&&' equality)*
    equality    := relational (('==' | '!=') relational)*
    relational  := additive (('<' | '<=' | '>' | '>=') additive)*
    additive    := term (('+' | '-') term)*
    term        := unary (('*' | '/' | '%') unary)*
    unary       := ('-' | '+' | '!') unary | postfix
    postfix     := primary ('(' arguments? ')' | '.' NAME | '[' expr ']')*
    primary     := NAME ('::' NAME)* | QUALIFIED '<' NUMBER '>' | NUMBER | STRING | 'true'
                 | 'false' | '(' expr ')'
A qualified name followed by `<` NUMBER `>` `(` is a template call (`std::get<0>(t)`), read
as a call of the name (`std::get`), as C++ reads it; an unqualified one stays a comparison.

Use `check_formula(text, allowed, location)` for any new kind of formula (forward-mode
`result:` formulas included): it returns the parsed expression or raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Union

from codegen.errors import Location, SchemaError, suggestion

# Deeper nesting is refused with a message, not a Python RecursionError.
MAX_DEPTH = 64


# --- The expression tree ---------------------------------------------------------------


@dataclass(frozen=True)
class Name:
    name: str            # "self", "std::exp"


@dataclass(frozen=True)
class Literal:
    text: str


@dataclass(frozen=True)
class Call:
    function: "Expr"
    arguments: tuple["Expr", ...]


@dataclass(frozen=True)
class Member:
    target: "Expr"
    member: str


@dataclass(frozen=True)
class Index:
    target: "Expr"
    index: "Expr"


@dataclass(frozen=True)
class Unary:
    operator: str
    operand: "Expr"


@dataclass(frozen=True)
class Binary:
    operator: str
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Conditional:
    condition: "Expr"
    if_true: "Expr"
    if_false: "Expr"


Expr = Union[Name, Literal, Call, Member, Index, Unary, Binary, Conditional]


@dataclass(frozen=True)
class AllowedNames:
    """What a formula may refer to: `values` it may read (and index, and call members of),
    `functions` it may call by name."""

    values: frozenset = field(default_factory=frozenset)
    functions: frozenset = field(default_factory=frozenset)

    def with_values(self, names: Iterable[str]) -> "AllowedNames":
        return AllowedNames(self.values | frozenset(names), self.functions)

    def with_functions(self, names: Iterable[str]) -> "AllowedNames":
        return AllowedNames(self.values, self.functions | frozenset(names))


# --- Tokens ----------------------------------------------------------------------------

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<number>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[fFlLuU]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<name>[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)
  | (?P<operator>==|!=|<=|>=|&&|\|\||[-+*/%<>!?:.,()\[\]])
""", re.VERBOSE)


@dataclass(frozen=True)
class _Token:
    kind: str    # number | string | name | operator | end
    text: str
    column: int  # 1-based


def _tokens(text: str, fail) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            fail(f"unexpected character '{text[position]}' at column {position + 1}; a formula "
                 "is one expression (names, calls, operators, literals), not a statement")
        kind = match.lastgroup
        if kind != "space":
            value = match.group()
            if kind == "name":
                value = re.sub(r"\s+", "", value)
            tokens.append(_Token(kind, value, position + 1))
        position = match.end()
    tokens.append(_Token("end", "", len(text) + 1))
    return tokens


# --- The parser ------------------------------------------------------------------------

_BINARY_LEVELS = (("||",), ("&&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"), ("*", "/", "%"))


class _Parser:
    def __init__(self, text: str, what: str, location: Location):
        self.what, self.location = what, location
        self.tokens = _tokens(text, self.fail)
        self.position = 0
        self.depth = 0

    def fail(self, message: str):
        raise SchemaError(self.location, f"{self.what}: {message}")

    @property
    def current(self) -> _Token:
        return self.tokens[self.position]

    def accept(self, *texts: str) -> bool:
        token = self.current
        if token.kind == "operator" and token.text in texts:
            self.position += 1
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.accept(text):
            self.fail(f"expected '{text}' at column {self.current.column}, found {self._describe()}")

    def _describe(self) -> str:
        token = self.current
        return "the end of the formula" if token.kind == "end" else f"'{token.text}'"

    def parse(self) -> Expr:
        if self.current.kind == "end":
            self.fail("the formula is empty")
        expression = self.expression()
        if self.current.kind != "end":
            self.fail(f"unexpected {self._describe()} at column {self.current.column}; a formula is "
                      "exactly one expression")
        return expression

    def nested(self):
        parser = self

        class _Level:
            def __enter__(self):
                parser.depth += 1
                if parser.depth > MAX_DEPTH:
                    parser.fail(f"nested more than {MAX_DEPTH} levels deep")

            def __exit__(self, *exc):
                parser.depth -= 1

        return _Level()

    def expression(self) -> Expr:
        with self.nested():
            condition = self.binary(0)
            if self.accept("?"):
                if_true = self.expression()
                self.expect(":")
                return Conditional(condition, if_true, self.expression())
            return condition

    def binary(self, level: int) -> Expr:
        if level == len(_BINARY_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.current.kind == "operator" and self.current.text in _BINARY_LEVELS[level]:
            operator = self.current.text
            self.position += 1
            left = Binary(operator, left, self.binary(level + 1))
        return left

    def unary(self) -> Expr:
        for operator in ("-", "+", "!"):
            if self.accept(operator):
                with self.nested():
                    return Unary(operator, self.unary())
        return self.postfix()

    def postfix(self) -> Expr:
        expression = self.primary()
        while True:
            if self.accept("("):
                arguments: list[Expr] = []
                if not self.accept(")"):
                    arguments.append(self.expression())
                    while self.accept(","):
                        arguments.append(self.expression())
                    self.expect(")")
                expression = Call(expression, tuple(arguments))
            elif self.accept("."):
                token = self.current
                if token.kind != "name" or "::" in token.text:
                    self.fail(f"expected a member name after '.' at column {token.column}, "
                              f"found {self._describe()}")
                self.position += 1
                expression = Member(expression, token.text)
            elif self.accept("["):
                index = self.expression()
                self.expect("]")
                expression = Index(expression, index)
            else:
                return expression

    def primary(self) -> Expr:
        token = self.current
        if token.kind in ("number", "string"):
            self.position += 1
            return Literal(token.text)
        if token.kind == "name":
            self.position += 1
            if "::" in token.text and self._template_argument_follows():
                self.position += 3  # '<' NUMBER '>': the call's '(' follows
            return Literal(token.text) if token.text in ("true", "false") else Name(token.text)
        if self.accept("("):
            with self.nested():
                inner = self.expression()
            self.expect(")")
            return inner
        self.fail(f"expected a name, a literal or '(' at column {token.column}, found {self._describe()}")


    def _template_argument_follows(self) -> bool:
        ahead = self.tokens[self.position:self.position + 4]
        return (len(ahead) == 4 and [t.text for t in ahead[::2]] == ["<", ">"]
                and ahead[1].kind == "number" and ahead[3].text == "(")


def parse_formula(text: str, location: Location, what: str = "formula") -> Expr:
    """The expression tree of `text`; raises SchemaError at `location` when it is not one
    expression of the grammar above."""
    return _Parser(text, what, location).parse()


# --- Name checks -----------------------------------------------------------------------


def _walk(expression: Expr) -> Iterator[tuple[Expr, bool]]:
    """Every node with whether it is in the callee position of a call."""
    stack: list[tuple[Expr, bool]] = [(expression, False)]
    while stack:
        node, called = stack.pop()
        yield node, called
        if isinstance(node, Call):
            stack.append((node.function, True))
            stack.extend((argument, False) for argument in node.arguments)
        elif isinstance(node, Member):
            stack.append((node.target, False))
        elif isinstance(node, Index):
            stack.extend(((node.target, False), (node.index, False)))
        elif isinstance(node, Unary):
            stack.append((node.operand, False))
        elif isinstance(node, Binary):
            stack.extend(((node.left, False), (node.right, False)))
        elif isinstance(node, Conditional):
            stack.extend(((node.condition, False), (node.if_true, False), (node.if_false, False)))


def names_in(expression: Expr) -> set[str]:
    """The names an expression reads or calls (members excluded)."""
    return {node.name for node, _ in _walk(expression) if isinstance(node, Name)}


def check_formula(text: str, allowed: AllowedNames, location: Location,
                  what: str = "formula") -> Expr:
    """Parses `text` and checks that every name it reads is in `allowed.values` and every
    name it calls is in `allowed.functions` (for derivative formulas: the operators and the
    helpers the formulas library declares, see check_formulas.py); raises SchemaError at `location` otherwise.
    A member call (`self.sizes()`) is checked through its target; a callee that is not a
    plain name (`grads[0](x)`) is refused."""
    expression = parse_formula(text, location, what)
    for node, called in _walk(expression):
        if isinstance(node, Call) and not isinstance(node.function, (Name, Member)):
            raise SchemaError(location, f"{what}: only a named function or a member can be called")
        if not isinstance(node, Name):
            continue
        if called:
            if node.name not in allowed.functions:
                raise SchemaError(location, f"{what} calls '{node.name}', which is not a function "
                                            "it may call" + suggestion(node.name, sorted(allowed.functions)))
        elif node.name not in allowed.values:
            raise SchemaError(location, f"{what} reads '{node.name}', which is not defined there"
                                        + suggestion(node.name, sorted(allowed.values)))
    return expression
