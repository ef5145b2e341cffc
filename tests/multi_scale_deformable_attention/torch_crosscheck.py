#!/usr/bin/python3
"""Differential check of gradconf's MultiScaleDeformableAttention forward and grad against the
pure-PyTorch form that mmcv's CPU users run (F.grid_sample per level with bilinear, zeros,
align_corners=False, weighted by attnWeight; gradients by autograd), in float64.

Usage: torch_crosscheck.py GRADCONF_BINARY [--cases N] [--seed S]
Exit 0: every case agrees; 1: a disagreement (printed); 77: skipped (no torch or numpy).

Each case is written as a case folder (cli/README.md "Case format") and run with
`gradconf replay --profile extended` in float64 (the profile that accepts DOUBLE) and in
float32 under seed, extended or cann-latest. Extended draws any C (mmcv's and
Deformable-DETR's own test shapes 2, 4, 30, 71 among them); cann-latest passes gradOutput as
(bs, Q, heads * C) and returns output so (errata E-MSDA-4). Locations are drawn in [-0.1, 1.1] with specials: 0, 1, exact pixel
centres, pixel edges; they avoid the two places where the pure-PyTorch form is not the
specification (so not a reference): the guard x = -1 / x = W exactly, where grid_sample still
differentiates a zero sample and our kernels (like mmcv's CUDA kernels) take no sample, and
non-finite coordinates, where grid_sample casts NaN to an integer.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))

from gradconf_cases import compare, main as run_main, replay, require_torch

np, torch = require_torch()
import torch.nn.functional as F  # noqa: E402

# Agreement bound on |ours - torch| / (1 + |torch|): float64 differs by summation order only
# (a few ulps times the accumulation length); float32 rounds inputs-to-output once per term.
TOLERANCE = {"float64": 1e-11, "float32": 2e-5}


def msda_torch(value, shapes, starts, loc, attn):
    bs, _, heads, c = value.shape
    _, q, _, levels, points, _ = loc.shape
    grids = 2 * loc - 1
    out = torch.zeros(bs * heads, c, q, dtype=value.dtype)
    for lvl, (h, w) in enumerate(shapes):
        v = value[:, starts[lvl]:starts[lvl] + h * w].flatten(2).transpose(1, 2)
        v = v.reshape(bs * heads, c, h, w)
        g = grids[:, :, :, lvl].transpose(1, 2).flatten(0, 1)  # (bs*M, Q, P, 2)
        s = F.grid_sample(v, g, mode="bilinear", padding_mode="zeros", align_corners=False)
        a = attn[:, :, :, lvl].transpose(1, 2).reshape(bs * heads, 1, q, points)
        out = out + (s * a).sum(-1)
    return out.view(bs, heads, c, q).permute(0, 3, 1, 2).contiguous()


def draw_location(rng, shape, shapes):
    loc = rng.uniform(-0.1, 1.1, size=shape)
    specials = rng.random(shape[:-1]) < 0.3
    for lvl, (h, w) in enumerate(shapes):
        for axis, size in ((0, w), (1, h)):
            pick = specials[..., lvl, :]
            n = int(pick.sum())
            if n == 0:
                continue
            kind = rng.integers(0, 4, size=n)
            j = rng.integers(0, size, size=n)
            vals = np.where(kind == 0, 0.0, np.where(kind == 1, 1.0,
                            np.where(kind == 2, (j + 0.5) / size, j / size)))
            sub = loc[..., lvl, :, axis]
            sub[pick] = vals
    # Keep clear of the guard (x = -1 or x = W exactly): see the module docstring.
    for lvl, (h, w) in enumerate(shapes):
        for axis, size in ((0, w), (1, h)):
            px = loc[..., lvl, :, axis] * size - 0.5
            bad = (np.abs(px + 1) < 1e-9) | (np.abs(px - size) < 1e-9)
            loc[..., lvl, :, axis][bad] += 0.25 / size
    return loc


def run_case(binary, rng, dtype, work):
    index_dtypes = [str(rng.choice(["int32", "int64"])), str(rng.choice(["int32", "int64"]))]
    levels = int(rng.integers(1, 5))
    shapes = [(int(rng.integers(1, 10)), int(rng.integers(1, 10))) for _ in range(levels)]
    extra = int(rng.integers(0, 3))
    starts, total = [], extra
    for h, w in shapes:
        starts.append(total)
        total += h * w
    bs, heads, q, points = (int(rng.integers(1, 3)), int(rng.integers(1, 4)),
                            int(rng.integers(1, 12)), int(rng.integers(1, 5)))
    profile = "extended" if dtype == "float64" else str(rng.choice(["seed", "extended",
                                                                     "cann-latest"]))
    c = int(rng.choice([8, 16, 24] + ([2, 4, 30, 71, 1, 13] if profile == "extended" else [])))
    value = rng.uniform(-1, 1, size=(bs, total, heads, c))
    loc = draw_location(rng, (bs, q, heads, levels, points, 2), shapes)
    attn = rng.uniform(-1, 1, size=(bs, q, heads, levels, points))
    attn[rng.random(attn.shape) < 0.1] = 0
    grad = rng.uniform(-1, 1, size=(bs, q, heads, c))
    np_dtype = np.float64 if dtype == "float64" else np.float32
    value, loc, attn, grad = (x.astype(np_dtype) for x in (value, loc, attn, grad))

    tv, tl, ta = (torch.tensor(x.astype(np.float64), requires_grad=True) for x in (value, loc, attn))
    out = msda_torch(tv, shapes, starts, tl, ta)
    out.backward(torch.tensor(grad.astype(np.float64)))
    expected = {"output": out.detach().numpy(), "gradValue": tv.grad.numpy(),
                "gradLocation": tl.grad.numpy(), "gradAttnWeight": ta.grad.numpy()}

    # gradLocation is one-sided at integer pixel coordinates (a kink of the bilinear sample):
    # torch unnormalizes as ((2 loc - 1 + 1) W - 1) / 2, which rounds differently from
    # loc W - 0.5 and may land on the other side of it. Such samples are not compared there.
    pixel = np.stack([loc[..., lvl, :, :] * np.array([w, h]) - 0.5
                      for lvl, (h, w) in enumerate(shapes)], axis=-3).astype(np.float64)
    near_integer = np.abs(pixel - np.round(pixel)) < 1e-6
    kink = np.repeat(near_integer.any(-1, keepdims=True), 2, axis=-1)

    failures = []
    for op, names in (("MultiScaleDeformableAttention", ["output"]),
                      ("MultiScaleDeformableAttentionGrad",
                       ["gradValue", "gradLocation", "gradAttnWeight"])):
        inputs = {"value": value, "spatialShape": np.array(shapes, dtype=index_dtypes[0]),
                  "levelStartIndex": np.array(starts, dtype=index_dtypes[1]),
                  "location": loc, "attnWeight": attn}
        if op.endswith("Grad"):
            inputs["gradOutput"] = grad.reshape(bs, q, heads * c) if profile == "cann-latest" \
                else grad
        status, outputs, folder = replay(binary, work, op, profile, inputs)
        if status.get("status") != 0:
            failures.append(f"{op}: status {status}")
            continue
        for name in names:
            ref = expected[name]
            ours = outputs[name]
            if name == "output" and profile == "cann-latest":
                if ours.shape != (bs, q, heads * c):
                    failures.append(f"{op}.output: shape {ours.shape}, cann-latest wants "
                                    f"{(bs, q, heads * c)}")
                    continue
                ours = ours.reshape(ref.shape)
            if name == "gradLocation":
                ours, ref = ours[~kink], ref[~kink]
            failures.append(compare(f"{op}.{name} {dtype}", ours, ref, TOLERANCE[dtype],
                                    f"{profile} C {c} levels {shapes} starts {starts} case "
                                    f"{folder}"))
    return [f for f in failures if f]


if __name__ == "__main__":
    sys.exit(run_main(__doc__, run_case, "pure-PyTorch MSDA", 60, 20261124))
