"""Names a schema gives that C++ or the model cannot take, refused at the schema's line.

  - an operator or overload name containing `__` (reserved in C++, and `__` alone names
    nothing a user could call) or starting with `_` and an uppercase letter;
  - a return named like a type (`-> Tensor Tensor` reads as one Tensor named "Tensor": two
    returns are written `-> (Tensor, Tensor)`);
  - two returns with one name, or a return named like an argument (the generated code
    declares both in one scope).
"""

from __future__ import annotations

import re

from codegen.errors import ErrorCollector
from codegen.model import BASE_TYPES, FunctionSchema

_RESERVED = re.compile(r"__|\A_[A-Z]")


def check_names(func: FunctionSchema, errors: ErrorCollector) -> None:
    for what, name in (("operator name", func.name), ("overload name", func.overload_name)):
        if name and _RESERVED.search(name):
            errors.error(func.loc, f"{what} '{name}' of '{func.full_name}' is reserved in C++ "
                                   "(it contains '__' or starts with '_' and an uppercase letter); "
                                   "rename it")
    seen: dict[str, int] = {}
    arguments = set(func.argument_names)
    for index, result in enumerate(func.returns):
        name = result.name
        if name is None:
            continue
        if name in BASE_TYPES:
            errors.error(func.loc, f"return {index} of '{func.full_name}' is named '{name}', which "
                                   f"is a type; to return several values write "
                                   f"'-> ({result.type}, {name})'")
        elif name in seen:
            errors.error(func.loc, f"return name '{name}' of '{func.full_name}' is used by returns "
                                   f"{seen[name]} and {index}; give each return its own name")
        elif name in arguments and not func.out_arguments:
            errors.error(func.loc, f"return name '{name}' of '{func.full_name}' is also an "
                                   "argument name; rename one")
        seen.setdefault(name, index)
