#!/usr/bin/python3
"""Differential check of gradconf's GridSampler2D forward and backward against PyTorch's own
torch.nn.functional.grid_sample (forward) and its autograd (inputGrad, gridGrad), which is the
semantic reference of the op (spec grid_sampler2d.md).

Usage: torch_crosscheck.py GRADCONF_BINARY [--cases N] [--seed S]
Exit 0: every case agrees; 1: a disagreement (printed); 77: skipped (no torch or numpy).

Every (interpolation, padding, alignCorners): bilinear and nearest with zeros and border under
the `seed` profile, and everything with bicubic or reflection under `cann-latest` (E-GS-5), in
float64 and float32, torch running in the same dtype. Grid points are drawn in [-1.2, 1.2] with
specials (-1, 0, 1 exactly, and points outside); they keep clear of the places where a sample's
value or derivative is not continuous (pixel-centre ties of nearest, integer pixel coordinates
of bilinear and bicubic, the border clamp's edge, reflection's folds), where one rounding step of
the coordinate may legally pick the other side: those places are the subject of the hand cases
in reference_test.cpp.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))

from gradconf_cases import compare, main as run_main, replay, require_torch

np, torch = require_torch()
import torch.nn.functional as F  # noqa: E402

# Agreement bound on |ours - torch| / (1 + |torch|): float64 differs by summation order (four
# taps, N*Hout*Wout scatter terms per input pixel); float32 rounds the coordinate, the weights
# and each scatter once.
TOLERANCE = {"float64": 1e-12, "float32": 1e-4}


def pixel(coord, size, align_corners):
    return (coord + 1) / 2 * (size - 1) if align_corners else ((coord + 1) * size - 1) / 2


def reflect(px, size, align_corners):
    """Reflection padding of a pixel coordinate, folded and clamped as ATen does."""
    low, span = (0.0, size - 1.0) if align_corners else (-0.5, float(size))
    if span == 0:
        return np.zeros_like(px)
    d = np.abs(px - low)
    extra = np.fmod(d, span)
    folded = np.where(np.floor(d / span) % 2 == 0, extra + low, span - extra + low)
    return np.clip(folded, 0, size - 1)


def near_half(px):
    """Within 1e-4 of an integer or a half-integer."""
    frac2 = 2 * px - np.floor(2 * px)
    return np.minimum(frac2, 1 - frac2) < 2e-4


def keep_clear(grid, width, height, align_corners, mode, padding):
    """Moves points whose pixel coordinate is within 1e-4 of a kink (an integer for bilinear,
    bicubic and the clamp, a half-integer for nearest; reflection's folds at integers or
    half-integers before it, and its clamp after it) by a quarter pixel."""
    nearest = mode == 1
    for axis, size in ((0, width), (1, height)):
        px = pixel(grid[..., axis], size, align_corners)
        folds = near_half(px) if padding == 2 else np.zeros(px.shape, dtype=bool)
        if padding == 2 and mode != 2:
            px = reflect(px, size, align_corners)
        frac = px - np.floor(px)
        near = (np.abs(frac - 0.5) < 1e-4) if nearest else \
            (np.minimum(frac, 1 - frac) < 1e-4)
        near |= folds
        edge = np.minimum(np.abs(px), np.abs(px - (size - 1))) < 1e-4
        step = (2 / max(size, 2)) * 0.25
        grid[..., axis] = np.where(near | edge, grid[..., axis] + step, grid[..., axis])
    return grid


def run_case(binary, rng, dtype, work):
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    h_in, w_in = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    h_out, w_out = int(rng.integers(1, 6)), int(rng.integers(1, 6))
    mode = int(rng.integers(0, 3))  # 0 bilinear, 1 nearest, 2 bicubic
    padding = int(rng.integers(0, 3))  # 0 zeros, 1 border, 2 reflection
    align = bool(rng.integers(0, 2))
    np_dtype = np.float64 if dtype == "float64" else np.float32
    x = rng.uniform(-1, 1, size=(n, c, h_in, w_in))
    grid = rng.uniform(-1.2, 1.2, size=(n, h_out, w_out, 2))
    specials = rng.random(grid.shape) < 0.15
    grid[specials] = rng.choice([-1.0, 0.0, 1.0, -1.1, 1.1], size=int(specials.sum()))
    for _ in range(3):  # a move may land near another kink: settle
        grid = keep_clear(grid, w_in, h_in, align, mode, padding)
    x, grid = x.astype(np_dtype), grid.astype(np_dtype)
    grad = rng.uniform(-1, 1, size=(n, c, h_out, w_out)).astype(np_dtype)

    tx = torch.tensor(x, requires_grad=True)
    tg = torch.tensor(grid, requires_grad=True)
    out = F.grid_sample(tx, tg, mode=("bilinear", "nearest", "bicubic")[mode],
                        padding_mode=("zeros", "border", "reflection")[padding],
                        align_corners=align)
    out.backward(torch.tensor(grad))
    attrs = {"interpolationMode": mode, "paddingMode": padding, "alignCorners": align}
    profile = "cann-latest" if mode == 2 or padding == 2 else "seed"
    context = (f"N {n} C {c} in {h_in}x{w_in} out {h_out}x{w_out} mode {mode} padding {padding} "
               f"alignCorners {align}")
    failures = []
    status, outs, folder = replay(binary, work, "GridSampler2D", profile,
                                  {"input": x, "grid": grid}, attrs)
    if status.get("status") != 0:
        return [f"GridSampler2D {dtype}: status {status}; {context}"]
    failures.append(compare(f"GridSampler2D.out {dtype}", outs["out"], out.detach().numpy(),
                            TOLERANCE[dtype], f"{context}; case {folder}"))
    attrs["outputMask"] = [True, True]
    status, outs, folder = replay(binary, work, "GridSampler2DBackward", profile,
                                  {"gradOutput": grad, "input": x, "grid": grid}, attrs)
    if status.get("status") != 0:
        return [f"GridSampler2DBackward {dtype}: status {status}; {context}"]
    for name, ref in (("inputGrad", tx.grad), ("gridGrad", tg.grad)):
        failures.append(compare(f"GridSampler2DBackward.{name} {dtype}", outs[name], ref.numpy(),
                                TOLERANCE[dtype], f"{context}; case {folder}"))
    return [f for f in failures if f]


if __name__ == "__main__":
    sys.exit(run_main(__doc__, run_case, "torch.nn.functional.grid_sample", 80, 20261126))
