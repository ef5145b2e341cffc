# Regenerates the two seed example cases next to this script with numpy's own .npy writer (not
# gradconf's, so the reader is checked against an independent writer). Run: python3 generate_seed_cases.py (needs numpy).
import json, os
import numpy as np

root = os.path.dirname(os.path.abspath(__file__))
inp = np.arange(1, 41, dtype=np.float32).reshape(1, 1, 5, 8)
grid = np.array([-1,-1, 0,-1, 1,-1, -1,0, 0,0, 1,0, -1,1, 0,1, 1,1], dtype=np.float32).reshape(1, 3, 3, 2)
gout = np.ones((1, 1, 3, 3), dtype=np.float32)

row_a = [.25, 0, 0, .25, .25, 0, 0, .25]
row_b = [.5, 0, 0, .5, .5, 0, 0, .5]
zero = [0] * 8
input_grad = [row_a, zero, row_b, zero, row_a]
grid_grad = [[2, 1.25], [2, 11.25], [-16, 10], [68, 10], [4, 20], [-96, 10], [66, -41.25], [2, -91.25], [-80, -50]]
out = [[0.25, 2.25, 2], [8.5, 20.5, 12], [8.25, 18.25, 10]]

def j(v): return json.dumps(v)

def rows(values, indent):
    pad = " " * indent
    return "[\n" + ",\n".join(pad + "  " + ", ".join(j(x) for x in r) for r in values) + "\n" + pad + "]"

def write_case(name, head, arrays, outputs):
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    for param, a in arrays.items():
        np.save(os.path.join(d, param + ".npy"), a)
    lines = ["{"]
    for k, v in head.items():
        lines.append(f"  {j(k)}: {j(v)},")
    lines.append('  "inputs": {')
    ins = [f'    {j(p)}: {{"file": {j(p + ".npy")}, "dtype": "float32", "shape": {j(list(a.shape))}}}' for p, a in arrays.items()]
    lines.append(",\n".join(ins))
    lines.append("  },")
    lines.append('  "outputs": {')
    outs = []
    for p, (shape, vals) in outputs.items():
        outs.append(f'    {j(p)}: {{\n      "dtype": "float32",\n      "shape": {j(shape)},\n      "values": {rows(vals, 6)}\n    }}')
    lines.append(",\n".join(outs))
    lines.append("  }")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    json.loads(text)
    open(os.path.join(d, "case.json"), "w").write(text)

seed = ("seed 002's call example (aclnnGridSampler2DBackward): input 1x1x5x8 holding 1..40, grid 1x3x3x2 "
        "sampling the corners, edge midpoints and centre")
write_case("grid_sampler2d_backward_seed", {
    "op": "GridSampler2DBackward",
    "profile": "seed",
    "note": "S" + seed[1:] + ", gradOutput all ones, bilinear, zeros padding, alignCorners false. 'outputs' holds "
            "the hand-computed expected values (PyTorch's grid_sampler_2d_backward formulas); they are "
            "exact in float32, so a replay must reproduce them bit for bit. inputGrad is listed by row "
            "(5 rows of 8), gridGrad by grid point as (x, y) pairs. replay ignores 'outputs' and 'note'.",
    "attrs": {"interpolationMode": 0, "paddingMode": 0, "alignCorners": False, "outputMask": [True, True]},
}, {"gradOutput": gout, "input": inp, "grid": grid},
   {"inputGrad": ([1, 1, 5, 8], input_grad), "gridGrad": ([1, 3, 3, 2], grid_grad)})

write_case("grid_sampler2d_forward_seed", {
    "op": "GridSampler2D",
    "profile": "seed",
    "note": "The forward of " + seed + ", bilinear, zeros padding, alignCorners false. 'outputs' holds "
            "the hand-computed expected values (PyTorch's grid_sample formulas), exact in float32, "
            "listed by row (3 rows of 3). replay ignores 'outputs' and 'note'.",
    "attrs": {"interpolationMode": 0, "paddingMode": 0, "alignCorners": False},
}, {"input": inp, "grid": grid}, {"out": ([1, 1, 3, 3], out)})
