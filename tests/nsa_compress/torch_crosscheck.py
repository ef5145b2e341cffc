#!/usr/bin/python3
"""Differential check of gradconf's NsaCompress forward and grad against PyTorch: the forward
written as torch's own sliding-window primitive (Tensor.unfold over each batch's tokens, then an
einsum with the per-head weight), the gradients by autograd. Nothing is shared with gradconf's
kernels or reference but the spec's words (spec nsa_compress.md).

Usage: torch_crosscheck.py GRADCONF_BINARY [--cases N] [--seed S]
Exit 0: every case agrees; 1: a disagreement (printed); 77: skipped (no torch or numpy).

Cases run under the `extended` profile (FLOAT and DOUBLE, any positive compressBlockSize and
compressStride, empty compressions) in float64 and float32; a third of them use l and d that
`seed` also accepts. Batches include empty ones, ones shorter than l, and a null actSeqLen.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))

from gradconf_cases import compare, main as run_main, replay, require_torch

np, torch = require_torch()

# Agreement bound on |ours - torch| / (1 + |torch|): float64 differs by summation order only
# (a few ulps times the accumulation length, at most l * D terms here); float32 rounds each
# product and partial sum once (2^-24 times a few hundred terms of magnitude <= 1).
TOLERANCE = {"float64": 1e-12, "float32": 2e-5}


def compress_torch(x, weight, lengths, block, stride):
    rows = []
    start = 0
    for length in lengths:
        segment = x[start:start + length]  # (L_b, N, D)
        start += length
        if length < block:
            continue
        windows = segment.unfold(0, block, stride)  # (n_b, N, D, l)
        rows.append(torch.einsum("wndj,jn->wnd", windows, weight))
    if not rows:
        return x.new_zeros((0,) + tuple(x.shape[1:]))
    return torch.cat(rows)


def draw(rng):
    if rng.random() < 1 / 3:
        stride = int(rng.choice([16, 32]))
        block = stride + 16 * int(rng.integers(1, 3))
    else:
        stride = int(rng.integers(1, 6))
        block = stride + int(rng.integers(0, 5))
    batches = int(rng.integers(1, 4))
    lengths = []
    for _ in range(batches):
        kind = rng.random()
        if kind < 0.15:
            lengths.append(0)
        elif kind < 0.3:
            lengths.append(int(rng.integers(1, block + 1)) - 1)  # no window
        else:
            lengths.append(block + int(rng.integers(0, 4 * stride + 1)))
    heads, dim = int(rng.integers(1, 4)), int(rng.integers(1, 9))
    null_seq = batches == 1 and rng.random() < 0.5
    return block, stride, lengths, heads, dim, null_seq


def run_case(binary, rng, dtype, work):
    block, stride, lengths, heads, dim, null_seq = draw(rng)
    tokens = sum(lengths)
    np_dtype = np.float64 if dtype == "float64" else np.float32
    x = rng.uniform(-1, 1, size=(tokens, heads, dim)).astype(np_dtype)
    weight = rng.uniform(-1, 1, size=(block, heads)).astype(np_dtype)
    tx = torch.tensor(x.astype(np.float64), requires_grad=True)
    tw = torch.tensor(weight.astype(np.float64), requires_grad=True)
    out = compress_torch(tx, tw, lengths, block, stride)
    grad = rng.uniform(-1, 1, size=tuple(out.shape)).astype(np_dtype)
    if out.numel() > 0:
        out.backward(torch.tensor(grad.astype(np.float64)))
    input_grad = tx.grad.numpy() if tx.grad is not None else np.zeros(x.shape)
    weight_grad = tw.grad.numpy() if tw.grad is not None else np.zeros(weight.shape)

    attrs = {"compressBlockSize": block, "compressStride": stride, "actSeqLenType": 0,
             "layoutOptional": "TND",
             "actSeqLenOptional": None if null_seq else [int(v) for v in np.cumsum(lengths)]}
    context = f"l {block} d {stride} lengths {lengths} N {heads} D {dim}"
    failures = []
    status, outs, folder = replay(binary, work, "NsaCompress", "extended",
                                  {"input": x, "weight": weight}, attrs)
    if status.get("status") != 0:
        return [f"NsaCompress {dtype}: status {status}; {context}"]
    failures.append(compare(f"NsaCompress.output {dtype}", outs["output"], out.detach().numpy(),
                            TOLERANCE[dtype], f"{context}; case {folder}"))
    status, outs, folder = replay(binary, work, "NsaCompressGrad", "extended",
                                  {"outputGrad": grad, "input": x, "weight": weight}, attrs)
    if status.get("status") != 0:
        return [f"NsaCompressGrad {dtype}: status {status}; {context}"]
    for name, ref in (("inputGrad", input_grad), ("weightGrad", weight_grad)):
        failures.append(compare(f"NsaCompressGrad.{name} {dtype}", outs[name], ref,
                                TOLERANCE[dtype], f"{context}; case {folder}"))
    return [f for f in failures if f]


if __name__ == "__main__":
    sys.exit(run_main(__doc__, run_case, "PyTorch unfold/einsum/autograd", 60, 20261126))
