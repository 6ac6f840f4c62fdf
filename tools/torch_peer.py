"""Finds torch, the peer of the Python package's benchmark and tests (bench/python,
tests/python): the running interpreter's own torch, else the one tools/setup-libtorch.sh
installs into .venv-torch/ (or $TG_LIBTORCH_VENV). That venv's site-packages is appended to
sys.path only when the venv was made from this same interpreter (pyvenv.cfg's `home` and
`version`), so its compiled modules fit; appended, so this interpreter's packages (NumPy)
come first."""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path
from types import ModuleType
from typing import Optional

REPOSITORY = Path(__file__).resolve().parents[1]


def _venv_config(venv: Path) -> dict[str, str]:
    try:
        lines = (venv / "pyvenv.cfg").read_text().splitlines()
    except OSError:
        return {}
    return {k.strip(): v.strip() for k, _, v in (line.partition("=") for line in lines) if v}


def import_torch() -> tuple[Optional[ModuleType], str]:
    """(torch, where it came from) or (None, why not)."""
    try:
        import torch
        return torch, "this interpreter"
    except ImportError:
        pass
    venv = Path(os.environ.get("TG_LIBTORCH_VENV", REPOSITORY / ".venv-torch"))
    site = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    if not (site / "torch").is_dir():
        return None, f"torch is not installed here nor in {venv} (tools/setup-libtorch.sh installs it)"
    config = _venv_config(venv)
    home = Path(sys._base_executable).parent  # type: ignore[attr-defined]
    if Path(config.get("home", "")).resolve() != home.resolve() or config.get("version") != platform.python_version():
        return None, f"{venv} was made from another Python ({config.get('home')}, {config.get('version')})"
    sys.path.append(str(site))
    try:
        import torch
        return torch, str(venv)
    except ImportError as error:
        sys.path.remove(str(site))
        return None, f"torch in {venv} does not import ({error}); rerun tools/setup-libtorch.sh"
