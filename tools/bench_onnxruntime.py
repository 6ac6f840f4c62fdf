#!/usr/bin/env python3
"""Time a tensorgen graph in onnxruntime, for bench_graph (which runs this as a subprocess).

usage: bench_onnxruntime.py GRAPH.yaml DIR ITERATIONS ROUNDS
DIR holds in_<k>.npy for the graph's inputs. Prints `onnxruntime_us <best microseconds per run>`,
or `onnxruntime_unsupported <operator names>` when the graph cannot be exported.
"""
import os
import sys
import time

import numpy as np
import onnxruntime as ort

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_onnx  # noqa: E402


def main(argv):
    graph_path, folder, iterations, rounds = argv[1], argv[2], int(argv[3]), int(argv[4])
    onnx_path = os.path.join(folder, "model.onnx")
    try:
        model = export_onnx.export(graph_path, onnx_path)
    except export_onnx.Unsupported as e:
        print("onnxruntime_unsupported " + ",".join(e.ops))
        return 0
    options = ort.SessionOptions()
    options.intra_op_num_threads = int(os.environ.get("TG_BENCH_THREADS", "0"))
    session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
    feeds = {info.name: np.load(os.path.join(folder, f"in_{k}.npy")) for k, info in enumerate(model.graph.input)}
    for _ in range(max(3, iterations // 10)):
        session.run(None, feeds)
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(iterations):
            session.run(None, feeds)
        best = min(best, (time.perf_counter() - start) / iterations)
    print(f"onnxruntime_us {best * 1e6:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
