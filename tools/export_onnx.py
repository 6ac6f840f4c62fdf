#!/usr/bin/env python3
"""Export a tensorgen graph file (YAML, docs/graph.md) to an ONNX model.

usage: export_onnx.py GRAPH.yaml MODEL.onnx

Every node becomes the ONNX operators that compute the same thing; the graph's constants
become initializers. An operator this exporter does not know stops the export with the list
of every unsupported operator name in the graph (exit status 3): nothing is dropped.
Needs the `onnx` package (the project's .venv has it; tools/setup-venv.sh).
"""
import math
import sys

import numpy as np
import onnx
import yaml
from onnx import TensorProto, helper, numpy_helper

OPSET = 17

DTYPES = {
    "float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE, "float16": TensorProto.FLOAT16,
    "bfloat16": TensorProto.BFLOAT16, "int64": TensorProto.INT64, "int32": TensorProto.INT32,
    "int16": TensorProto.INT16, "int8": TensorProto.INT8, "uint8": TensorProto.UINT8, "bool": TensorProto.BOOL,
}
NUMPY = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64,
         "int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_}


def name(ref):
    return "v" + ref[1:]


class Exporter:
    def __init__(self, graph):
        self.graph = graph
        self.nodes = []
        self.initializers = []
        self.types = {}  # value name -> dtype name
        self.counter = 0

    def fresh(self, hint):
        self.counter += 1
        return f"{hint}_{self.counter}"

    def const(self, array, hint="c"):
        n = self.fresh(hint)
        self.initializers.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def scalar_like(self, value, dtype):
        return self.const(np.array(value, dtype=NUMPY[dtype]), "s")

    def emit(self, op, inputs, outputs, **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, **attrs))

    def rank(self, ref):
        return len(self.shapes[ref])

    # ---- one method per tensorgen operator; each gets (args, outs, out_types) ----

    def scaled(self, ref, alpha, dtype):
        if alpha in (None, 1):
            return name(ref)
        scaled = self.fresh("scaled")
        self.emit("Mul", [name(ref), self.scalar_like(alpha, dtype)], [scaled])
        return scaled

    def op_add(self, a, o, t):
        self.emit("Add", [name(a["self"]), self.scaled(a["other"], a.get("alpha"), t[0])], o)

    def op_sub(self, a, o, t):
        self.emit("Sub", [name(a["self"]), self.scaled(a["other"], a.get("alpha"), t[0])], o)

    def op_mul(self, a, o, t):
        self.emit("Mul", [name(a["self"]), name(a["other"])], o)

    def op_div(self, a, o, t):
        self.emit("Div", [name(a["self"]), name(a["other"])], o)

    def op_relu(self, a, o, t):
        self.emit("Relu", [name(a["self"])], o)

    def op_neg(self, a, o, t):
        self.emit("Neg", [name(a["self"])], o)

    def op_tanh(self, a, o, t):
        self.emit("Tanh", [name(a["self"])], o)

    def op_sigmoid(self, a, o, t):
        self.emit("Sigmoid", [name(a["self"])], o)

    def op_gelu(self, a, o, t):
        x, dtype = name(a["self"]), t[0]
        half = self.fresh("half")
        if a.get("approximate", "none") == "tanh":
            # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
            cube, inner, scaled, th, one_plus = (self.fresh(h) for h in ("cube", "inner", "scaled", "th", "onep"))
            self.emit("Mul", [x, x], [cube + "_sq"])
            self.emit("Mul", [cube + "_sq", x], [cube])
            self.emit("Mul", [cube, self.scalar_like(0.044715, dtype)], [inner + "_c"])
            self.emit("Add", [x, inner + "_c"], [inner])
            self.emit("Mul", [inner, self.scalar_like(math.sqrt(2 / math.pi), dtype)], [scaled])
            self.emit("Tanh", [scaled], [th])
            self.emit("Add", [th, self.scalar_like(1.0, dtype)], [one_plus])
        else:
            # 0.5 x (1 + erf(x / sqrt(2)))
            scaled, erf, one_plus = self.fresh("scaled"), self.fresh("erf"), self.fresh("onep")
            self.emit("Mul", [x, self.scalar_like(1 / math.sqrt(2), dtype)], [scaled])
            self.emit("Erf", [scaled], [erf])
            self.emit("Add", [erf, self.scalar_like(1.0, dtype)], [one_plus])
        self.emit("Mul", [x, one_plus], [half])
        self.emit("Mul", [half, self.scalar_like(0.5, dtype)], o)

    def op_mm(self, a, o, t):
        self.emit("MatMul", [name(a["self"]), name(a["mat2"])], o)

    op_bmm = op_mm

    def op_matmul(self, a, o, t):
        self.emit("MatMul", [name(a["self"]), name(a["other"])], o)

    def op_addmm(self, a, o, t):
        self.emit("Gemm", [name(a["mat1"]), name(a["mat2"]), name(a["self"])], o,
                  alpha=float(a.get("alpha", 1)), beta=float(a.get("beta", 1)))

    def op__softmax(self, a, o, t):
        self.emit("Softmax", [name(a["self"])], o, axis=int(a["dim"]))

    def op_softmax(self, a, o, t):
        self.emit("Softmax", [name(a["self"])], o, axis=int(a["dim"]))

    def op_native_layer_norm(self, a, o, t):
        axis = -len(a["normalized_shape"])
        inputs = [name(a["input"]), name(a["weight"]) if a.get("weight") else "", name(a["bias"]) if a.get("bias") else ""]
        if not inputs[1]:
            # ONNX needs a scale: ones of the normalized shape.
            inputs[1] = self.const(np.ones(a["normalized_shape"], dtype=NUMPY[t[0]]), "ones")
        while inputs and inputs[-1] == "":
            inputs.pop()
        self.emit("LayerNormalization", inputs, [o[0], o[1] + "_onnx", o[2] + "_onnx"], axis=axis,
                  epsilon=float(a.get("eps", 1e-5)))
        # tensorgen's mean and rstd keep the reduced dims as 1, as ONNX's do.
        self.emit("Identity", [o[1] + "_onnx"], [o[1]])
        self.emit("Identity", [o[2] + "_onnx"], [o[2]])

    def op_t(self, a, o, t):
        r = self.rank(a["self"])
        self.emit("Transpose", [name(a["self"])], o, perm=list(reversed(range(r))))

    def op_transpose(self, a, o, t):
        r = self.rank(a["self"])
        d0, d1 = int(a["dim0"]) % max(r, 1), int(a["dim1"]) % max(r, 1)
        perm = list(range(r))
        perm[d0], perm[d1] = perm[d1], perm[d0]
        self.emit("Transpose", [name(a["self"])], o, perm=perm)

    def op_permute(self, a, o, t):
        r = self.rank(a["self"])
        self.emit("Transpose", [name(a["self"])], o, perm=[int(d) % r for d in a["dims"]])

    def reshape(self, src, sizes, o):
        self.emit("Reshape", [name(src), self.const(np.array(sizes, dtype=np.int64), "shape")], o)

    def op_view(self, a, o, t):
        self.reshape(a["self"], a["size"], o)

    def op_reshape(self, a, o, t):
        self.reshape(a["self"], a["shape"], o)

    def op__unsafe_view(self, a, o, t):
        self.reshape(a["self"], a["size"], o)

    def op_expand(self, a, o, t):
        sizes = [s if s != -1 else 1 for s in a["size"]]
        self.emit("Expand", [name(a["self"]), self.const(np.array(sizes, dtype=np.int64), "shape")], o)

    def op_contiguous(self, a, o, t):
        self.emit("Identity", [name(a["self"])], o)

    op_clone = op_contiguous

    def op_unsqueeze(self, a, o, t):
        self.emit("Unsqueeze", [name(a["self"]), self.const(np.array([int(a["dim"])], dtype=np.int64), "axes")], o)

    def op_squeeze(self, a, o, t):
        self.emit("Squeeze", [name(a["self"]), self.const(np.array([int(a["dim"])], dtype=np.int64), "axes")], o)

    def handler(self, op):
        base = op.split("::", 1)[-1].split(".", 1)[0]
        return getattr(self, "op_" + base, None)

    def run(self):
        g = self.graph
        self.shapes = {}
        inputs = []
        for i in g["inputs"]:
            self.shapes[i["value"]] = i["sizes"]
            inputs.append(helper.make_tensor_value_info(name(i["value"]), DTYPES[i["dtype"]], i["sizes"]))
        for c in g.get("constants", []) or []:
            self.shapes[c["value"]] = c["sizes"]
            data = np.array(c["data"], dtype=NUMPY[c["dtype"]]).reshape(c["sizes"])
            self.initializers.append(numpy_helper.from_array(data, name(c["value"])))
        unsupported = sorted({n["op"] for n in g["nodes"] if self.handler(n["op"]) is None})
        if unsupported:
            raise Unsupported(unsupported)
        for n in g["nodes"]:
            outs = [name(o["value"]) for o in n["outputs"]]
            for o in n["outputs"]:
                self.shapes[o["value"]] = o["sizes"]
            self.handler(n["op"])(n["args"], outs, [o["dtype"] for o in n["outputs"]])
        self.cast_constants()
        by_ref = {o["value"]: o for n in g["nodes"] for o in n["outputs"]}
        by_ref.update({i["value"]: i for i in g["inputs"]})
        outputs = []
        for k, ref in enumerate(g["outputs"]):
            info = by_ref[ref]
            out_name = f"output{k}"
            self.emit("Identity", [name(ref)], [out_name])
            outputs.append(helper.make_tensor_value_info(out_name, DTYPES[info["dtype"]], info["sizes"]))
        graph = helper.make_graph(self.nodes, "tensorgen_graph", inputs, outputs, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model

    def cast_constants(self):
        # A wrapped number (x * 0.5) is float64 in tensorgen and promotes like a Python number;
        # ONNX's binary operators need equal types, so it takes the other operand's type.
        dtype_of = {}
        for i in self.graph["inputs"]:
            dtype_of[name(i["value"])] = i["dtype"]
        for n in self.graph["nodes"]:
            for o in n["outputs"]:
                dtype_of[name(o["value"])] = o["dtype"]
        wrapped = {name(c["value"]) for c in self.graph.get("constants", []) or [] if c.get("wrapped_number")}
        by_name = {init.name: init for init in self.initializers}
        for node in self.nodes:
            if node.op_type in ("Add", "Sub", "Mul", "Div") and len(node.input) == 2:
                for k in (0, 1):
                    other = node.input[1 - k]
                    if node.input[k] in wrapped and other in dtype_of:
                        init = by_name[node.input[k]]
                        value = numpy_helper.to_array(init).astype(NUMPY[dtype_of[other]])
                        init.CopyFrom(numpy_helper.from_array(value, init.name))


class Unsupported(Exception):
    def __init__(self, ops):
        super().__init__("unsupported operators: " + ", ".join(ops))
        self.ops = ops


def export(graph_path, onnx_path):
    with open(graph_path) as f:
        graph = yaml.safe_load(f)
    model = Exporter(graph).run()
    onnx.save(model, onnx_path)
    return model


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        export(argv[1], argv[2])
    except Unsupported as e:
        print(f"export_onnx: {argv[1]}: cannot export: {e}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
