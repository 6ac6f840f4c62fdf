"""The pytest suite of the Python package (docs/python.md). tools/run-tests.sh runs it with
PYTHONPATH=build/python (the package as the build lays it out); it also runs against an
installed package (pip install .)."""

import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY))  # `codegen`: the schema model the generated cases read

try:
    import tensorgen  # noqa: F401
except ImportError as error:  # pragma: no cover - a set-up mistake, said plainly
    raise SystemExit(f"tests/python: cannot import tensorgen ({error}); build it with `ninja -C build` and run "
                     "with PYTHONPATH=build/python, or `pip install .`")

# torch, the peer of the comparisons (skipped without it): this interpreter's, else the one
# tools/setup-libtorch.sh installs into .venv-torch/, made importable here (tools/torch_peer.py).
sys.path.insert(0, str(REPOSITORY / "tools"))
from torch_peer import import_torch  # noqa: E402

TORCH, TORCH_SOURCE = import_torch()


def pytest_report_header(config):
    return f"torch: {TORCH.__version__} from {TORCH_SOURCE}" if TORCH else f"torch: not importable ({TORCH_SOURCE})"


@pytest.fixture(autouse=True)
def _seed():
    import numpy as np
    import tensorgen as tg
    tg.manual_seed(0)
    np.random.seed(0)
