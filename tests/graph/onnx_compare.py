#!/usr/bin/env python3
"""Export a tensorgen graph to ONNX, run it in onnxruntime, compare with tensorgen's outputs.

usage: onnx_compare.py GRAPH.yaml DIR [RTOL ATOL]
DIR holds in_<k>.npy for the graph's inputs in order and out_<k>.npy for tensorgen's outputs.
Prints one line per output with its largest absolute difference; exit status 1 on a mismatch.
"""
import os
import sys

import numpy as np
import onnxruntime as ort

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import export_onnx  # noqa: E402


def main(argv):
    graph_path, folder = argv[1], argv[2]
    rtol = float(argv[3]) if len(argv) > 3 else 1e-4
    atol = float(argv[4]) if len(argv) > 4 else 1e-5
    onnx_path = os.path.join(folder, "model.onnx")
    model = export_onnx.export(graph_path, onnx_path)
    session = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    feeds = {}
    for k, info in enumerate(model.graph.input):
        feeds[info.name] = np.load(os.path.join(folder, f"in_{k}.npy"))
    results = session.run(None, feeds)
    ok = True
    for k, got in enumerate(results):
        want = np.load(os.path.join(folder, f"out_{k}.npy"))
        diff = float(np.max(np.abs(got.astype(np.float64) - want))) if want.size else 0.0
        close = got.shape == want.shape and np.allclose(got, want, rtol=rtol, atol=atol)
        print(f"output{k} shape {list(got.shape)} max_abs_diff {diff:.3g} {'ok' if close else 'MISMATCH'}")
        ok = ok and close
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
