"""tg.save / tg.load: tensors, lists and dicts of tensors and state dicts, in the
safetensors format (readable by the `safetensors` package)."""

from __future__ import annotations

import os
from typing import Any, Union

from tensorgen import _C
from tensorgen._C import Tensor

__all__ = ["save", "load"]

# How the Python structure was laid out, kept in the file's metadata so load() rebuilds it.
_KIND = "tensorgen.kind"


def save(obj: Any, path: Union[str, os.PathLike]) -> None:
    """Saves a Tensor, a list/tuple of Tensors, or a dict of name -> Tensor (a state dict)."""
    if isinstance(obj, Tensor):
        named, kind = [("0", obj)], "tensor"
    elif isinstance(obj, (list, tuple)):
        named, kind = [(str(i), t) for i, t in enumerate(obj)], "list"
    elif isinstance(obj, dict):
        named, kind = list(obj.items()), "dict"
    else:
        raise TypeError(f"[save] expected a Tensor, a list of Tensors or a dict of name -> Tensor, "
                        f"got {type(obj).__name__}")
    for name, t in named:
        if not isinstance(name, str):
            raise TypeError(f"[save] dict keys must be str, got {type(name).__name__}")
        if not isinstance(t, Tensor):
            raise TypeError(f"[save] entry '{name}' must be a Tensor, got {type(t).__name__}")
    _C._save_tensors([(n, t.detach()) for n, t in named], os.fspath(path), {_KIND: kind})


def load(path: Union[str, os.PathLike]) -> Any:
    """Loads what save() wrote; a safetensors file from elsewhere loads as a dict."""
    import json
    path = os.fspath(path)
    named = _C._load_tensors(path)
    with open(path, "rb") as stream:
        header_size = int.from_bytes(stream.read(8), "little")
        metadata = json.loads(stream.read(header_size)).get("__metadata__", {}) or {}
    kind = metadata.get(_KIND, "dict")
    if kind == "tensor":
        return named[0][1]
    if kind == "list":
        return [t for _, t in sorted(named, key=lambda item: int(item[0]))]
    return dict(named)
