"""tg.utils: data loading (tg.utils.data)."""

from tensorgen.utils import data  # noqa: F401
