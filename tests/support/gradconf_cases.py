"""What the torch cross-checks share: write a case folder (cli/README.md "Case format"), run it
with `gradconf replay`, read the outputs back, and measure the disagreement. Imported by
tests/<op>/torch_crosscheck.py; needs numpy only."""
import json
import os
import subprocess
import tempfile

import numpy as np


def replay(binary, work, op, profile, inputs, attrs=None):
    """Runs one case. inputs: {name: np.ndarray} (the array's dtype is the tensor's dtype).
    Returns (status dict, {output name: float64 array}, case folder)."""
    folder = tempfile.mkdtemp(dir=work)
    for name, array in inputs.items():
        np.save(os.path.join(folder, name + ".npy"), array)
    case = {"op": op, "profile": profile,
            "inputs": {name: {"dtype": str(array.dtype)} for name, array in inputs.items()}}
    if attrs:
        case["attrs"] = attrs
    with open(os.path.join(folder, "case.json"), "w") as f:
        json.dump(case, f)
    outdir = os.path.join(folder, "out")
    subprocess.run([binary, "replay", folder, "--out", outdir], check=True)
    with open(os.path.join(outdir, "status.json")) as f:
        status = json.load(f)
    outputs = {}
    for file in os.listdir(outdir):
        if file.endswith(".npy"):
            outputs[file[:-4]] = np.load(os.path.join(outdir, file)).astype(np.float64)
    return status, outputs, folder


def scaled_error(ours, ref):
    """max |ours - ref| / (1 + |ref|), and the index where it is largest."""
    ours = np.asarray(ours, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if ours.shape != ref.shape:
        return float("inf"), None
    if ref.size == 0:
        return 0.0, None
    err = np.abs(ours - ref) / (1 + np.abs(ref))
    err = np.where(np.isnan(err), np.inf, err)
    index = np.unravel_index(int(np.argmax(err)), ref.shape)
    return float(err[index]), index


def compare(label, ours, ref, tolerance, context):
    """A failure line when the scaled error exceeds tolerance, else None."""
    err, index = scaled_error(ours, ref)
    if err <= tolerance:
        return None
    where = "" if index is None else f" at {tuple(int(i) for i in index)}: ours " \
        f"{np.asarray(ours)[index]!r} torch {np.asarray(ref)[index]!r}"
    shapes = f" (shapes {np.shape(ours)} vs {np.shape(ref)})" if index is None else ""
    return f"{label}: error {err:.3g} > {tolerance}{where}{shapes}; {context}"


def parse_args(argv, default_cases, default_seed):
    """GRADCONF_BINARY [--cases N] [--seed S] -> (binary, cases, seed), or None for usage."""
    if len(argv) < 2:
        return None
    cases = int(argv[argv.index("--cases") + 1]) if "--cases" in argv else default_cases
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else default_seed
    return argv[1], cases, seed
