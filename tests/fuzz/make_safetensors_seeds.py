"""Writes the seed corpus of the safetensors fuzz target (tests/fuzz/corpus/safetensors) with the
safetensors package itself, so the seeds are files the reference writer produces. Run once with
the worktree's venv: .venv/bin/python tests/fuzz/make_safetensors_seeds.py; the files are kept
in the repository (tests/fuzz/test_seed_corpora.cpp checks that tensorgen loads each)."""

from pathlib import Path

import numpy as np
from safetensors.numpy import save

OUT = Path(__file__).resolve().parent / "corpus" / "safetensors"

SEEDS = {
    "one_float.safetensors": ({"0": np.arange(6, dtype=np.float32).reshape(2, 3)}, None),
    "dtypes.safetensors": ({
        "f64": np.array([1.5, -2.0], dtype=np.float64),
        "f16": np.array([0.5, 65504.0, -0.0], dtype=np.float16),
        "i64": np.array([[-(2**62), 7]], dtype=np.int64),
        "i32": np.array([3], dtype=np.int32),
        "i16": np.array([-5, 5], dtype=np.int16),
        "i8": np.array([-128, 127], dtype=np.int8),
        "u8": np.array([0, 255], dtype=np.uint8),
        "b": np.array([True, False, True]),
    }, None),
    "scalar_empty_metadata.safetensors": ({
        "scalar": np.array(3.25, dtype=np.float32),
        "empty": np.zeros((0, 4), dtype=np.float32),
        "weight": np.ones((2, 2, 2), dtype=np.float32),
    }, {"format": "pt", "note": "seed"}),
}

OUT.mkdir(parents=True, exist_ok=True)
for name, (tensors, metadata) in SEEDS.items():
    (OUT / name).write_bytes(save(tensors, metadata=metadata))
    print(OUT / name)
