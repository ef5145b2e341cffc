#!/usr/bin/python3
"""Differential check of gradconf's NsaSelectedAttention forward and grad against PyTorch: the
selected keys gathered with torch indexing, scores by einsum, the causal mask and softmax by
torch.softmax, and dq, dk, dv by autograd through that forward (not by the spec's dS formula).
Nothing is shared with gradconf's kernels or reference but the spec's words
(spec nsa_selected_attention.md).

Usage: torch_crosscheck.py GRADCONF_BINARY [--cases N] [--seed S]
Exit 0: every case agrees; 1: a disagreement (printed); 77: skipped (no torch or numpy).

Cases run under the `extended` profile (FLOAT and DOUBLE, any head dims and block sizes) in
float64 and float32; some use seed-sized blocks (B 16, D 128). topk draws always include the
query's own block (so no row is fully masked: that row's value is a Decision, not torch's NaN),
plus random blocks, future ones and duplicates included; sparseMode 0 and 2.
The backward is given torch's attentionOut and statistics, or a null attentionOut (recomputed).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))

from gradconf_cases import compare, main as run_main, replay, require_torch

np, torch = require_torch()

# Agreement bound on |ours - torch| / (1 + |torch|): float64 differs by summation and exp
# rounding only (ulps times K*B + D terms); float32 rounds scores, exps and sums once each, over
# at most a few hundred terms of magnitude <= a few.
TOLERANCE = {"float64": 1e-11, "float32": 5e-5}


def selected_attention_torch(q, k, v, topk, seq_q, seq_kv, block, scale, causal):
    """out (T1, N1, Dv), max and sum (T1, N1) over the unmasked selected scores."""
    t1, n1, _ = q.shape
    n2 = k.shape[1]
    group = n1 // n2
    outs, maxes, sums = [], [], []
    q_start = kv_start = 0
    for q_end, kv_end in zip(seq_q, seq_kv):
        for t in range(q_start, q_end):
            s = t - q_start
            local = (topk[t].long().unsqueeze(-1) * block +
                     torch.arange(block).view(1, 1, block)).reshape(n2, -1)  # (N2, K*B)
            keys = k[kv_start + local, torch.arange(n2).unsqueeze(-1)]  # (N2, K*B, Dqk)
            values = v[kv_start + local, torch.arange(n2).unsqueeze(-1)]
            heads = torch.arange(n1) // group
            scores = scale * torch.einsum("nd,njd->nj", q[t], keys[heads])  # (N1, K*B)
            masked = (local[heads] > s) if causal else torch.zeros_like(scores, dtype=torch.bool)
            scores = scores.masked_fill(masked, float("-inf"))
            p = torch.softmax(scores, dim=-1)
            outs.append(torch.einsum("nj,njd->nd", p, values[heads]))
            m = scores.max(dim=-1).values
            maxes.append(m)
            sums.append(torch.exp(scores - m.unsqueeze(-1)).sum(-1))
        q_start, kv_start = q_end, kv_end
    return torch.stack(outs), torch.stack(maxes), torch.stack(sums)


def draw(rng):
    if rng.random() < 0.25:
        block, dim_qk, dim_v = 16, 128, 128
    else:
        block = int(rng.integers(1, 5))
        dim_qk, dim_v = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    count = int(rng.integers(1, 4))
    kv_heads = int(rng.integers(1, 3))
    q_heads = kv_heads * int(rng.integers(1, 3))
    seqs = []
    for _ in range(int(rng.integers(1, 3))):
        kv_blocks = count + int(rng.integers(0, 3))
        seqs.append((int(rng.integers(1, 7)), kv_blocks * block))
    return block, count, q_heads, kv_heads, dim_qk, dim_v, seqs


def draw_topk(rng, seqs, kv_heads, count, block, causal):
    rows = []
    for q_len, kv_len in seqs:
        blocks = kv_len // block
        for s in range(q_len):
            for _ in range(kv_heads):
                # The query's own block (clamped to the batch's keys) keeps one key unmasked.
                own = min(s // block, blocks - 1) if causal else int(rng.integers(0, blocks))
                picks = list(rng.integers(0, blocks, size=count))
                picks[int(rng.integers(0, count))] = own
                rows.append(picks)
    t1 = sum(q for q, _ in seqs)
    return np.array(rows, dtype=np.int32).reshape(t1, kv_heads, count)


def run_case(binary, rng, dtype, work):
    block, count, q_heads, kv_heads, dim_qk, dim_v, seqs = draw(rng)
    causal = bool(rng.random() < 0.6)
    t1, t2 = sum(q for q, _ in seqs), sum(kv for _, kv in seqs)
    np_dtype = np.float64 if dtype == "float64" else np.float32
    q = rng.uniform(-1, 1, size=(t1, q_heads, dim_qk)).astype(np_dtype)
    k = rng.uniform(-1, 1, size=(t2, kv_heads, dim_qk)).astype(np_dtype)
    v = rng.uniform(-1, 1, size=(t2, kv_heads, dim_v)).astype(np_dtype)
    topk = draw_topk(rng, seqs, kv_heads, count, block, causal)
    scale = float(1 / np.sqrt(dim_qk))
    seq_q = [int(x) for x in np.cumsum([s for s, _ in seqs])]
    seq_kv = [int(x) for x in np.cumsum([s for _, s in seqs])]

    tq, tk, tv = (torch.tensor(a.astype(np.float64), requires_grad=True) for a in (q, k, v))
    out, m, l = selected_attention_torch(tq, tk, tv, torch.tensor(topk), seq_q, seq_kv, block,
                                         scale, causal)
    d_out = rng.uniform(-1, 1, size=tuple(out.shape)).astype(np_dtype)
    out.backward(torch.tensor(d_out.astype(np.float64)))

    attrs = {"actualSeqQLenOptional": seq_q, "actualSeqKvLenOptional": seq_kv,
             "scaleValue": scale, "headNum": q_heads, "inputLayout": "TND",
             "sparseMode": 2 if causal else 0, "selectedBlockSize": block,
             "selectedBlockCount": count}
    context = (f"seqs {seqs} N1 {q_heads} N2 {kv_heads} Dqk {dim_qk} Dv {dim_v} B {block} "
               f"K {count} causal {causal}")
    failures = []
    status, outs, folder = replay(binary, work, "NsaSelectedAttention", "extended",
                                  {"query": q, "key": k, "value": v, "topkIndices": topk}, attrs)
    if status.get("status") != 0:
        return [f"NsaSelectedAttention {dtype}: status {status}; {context}"]
    where = f"{context}; case {folder}"
    lanes = lambda x: np.repeat(x.detach().numpy()[..., None], 8, axis=-1)
    for name, ref in (("attentionOut", out.detach().numpy()), ("softmaxMaxOut", lanes(m)),
                      ("softmaxSumOut", lanes(l))):
        failures.append(compare(f"NsaSelectedAttention.{name} {dtype}", outs[name], ref,
                                TOLERANCE[dtype], where))

    stat_dtype = np.float64 if dtype == "float64" else np.float32
    inputs = {"query": q, "key": k, "value": v,
              "attentionOut": out.detach().numpy().astype(np_dtype),
              "attentionOutGrad": d_out,
              "softmaxMax": lanes(m).astype(stat_dtype), "softmaxSum": lanes(l).astype(stat_dtype),
              "topkIndices": topk}
    if rng.random() < 0.3:
        del inputs["attentionOut"]  # null: recomputed from q, k, v
    status, outs, folder = replay(binary, work, "NsaSelectedAttentionGrad", "extended", inputs,
                                  attrs)
    if status.get("status") != 0:
        return [f"NsaSelectedAttentionGrad {dtype}: status {status}; {context}"]
    where = f"{context}; case {folder}"
    for name, ref in (("dqOut", tq.grad), ("dkOut", tk.grad), ("dvOut", tv.grad)):
        failures.append(compare(f"NsaSelectedAttentionGrad.{name} {dtype}", outs[name],
                                ref.numpy(), TOLERANCE[dtype], where))
    return [f for f in failures if f]


if __name__ == "__main__":
    sys.exit(run_main(__doc__, run_case, "PyTorch gather/softmax/autograd", 60, 20261126))
