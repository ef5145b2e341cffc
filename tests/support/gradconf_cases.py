"""What the torch cross-checks share: write a case folder (cli/README.md "Case format"), run it
with `gradconf replay`, read the outputs back, measure the disagreement, and the driver loop.
Imported by tests/<op>/torch_crosscheck.py after require_torch()."""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    np = None


def require_torch():
    """(numpy, torch), or exit 77 (skipped) where either is absent."""
    try:
        import torch
    except ImportError:
        torch = None
    if np is None or torch is None:
        print("skipped: torch or numpy not available")
        sys.exit(77)
    torch.set_num_threads(1)
    return np, torch


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


def main(doc, run_case, what, default_cases=60, default_seed=20261126):
    """The command line GRADCONF_BINARY [--cases N] [--seed S]: runs run_case(binary, rng, dtype,
    work) for N cases, float64 and float32 in turn, until one disagrees. Returns the exit code:
    0 all agree, 1 a disagreement (printed), 2 usage."""
    argv = sys.argv
    if len(argv) < 2:
        print(doc)
        return 2
    binary = argv[1]
    cases = int(argv[argv.index("--cases") + 1]) if "--cases" in argv else default_cases
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else default_seed
    rng = np.random.default_rng(seed)
    failures = []
    with tempfile.TemporaryDirectory() as work:
        for i in range(cases):
            failures += run_case(binary, rng, "float64" if i % 2 == 0 else "float32", work)
            if failures:
                break
    for f in failures:
        print("DISAGREE", f)
    print(f"{cases} cases against {what}: {'FAILED' if failures else 'all agree'}")
    return 1 if failures else 0
