#!/usr/bin/python3
"""The PyTorch peer of bench/nsa_selected_attention (issue text): the same case in fp32 with autograd, median of
five timed runs after warm-up. Usage: /usr/bin/python3 torch_peer.py [THREADS] [variant].
Optional: prints "skipped: torch not available" and exits 0 without python3-torch."""
try:
    import torch
except ImportError:
    print("skipped: torch not available"); raise SystemExit(0)
import time, sys, math
torch.set_num_threads(int(sys.argv[1]) if len(sys.argv)>1 else 2)
dtype = torch.float32
Bn, L, N1, N2, Dqk, Dv, B, K = 2, 1024, 16, 1, 192, 128, 64, 8
G = N1 // N2
T = Bn * L
torch.manual_seed(0)
q = torch.randn(T, N1, Dqk, dtype=dtype, requires_grad=True)
k = torch.randn(T, N2, Dqk, dtype=dtype, requires_grad=True)
v = torch.randn(T, N2, Dv, dtype=dtype, requires_grad=True)
# causal topk: own block, then distinct earlier blocks, then block 0
topk = torch.zeros(T, N2, K, dtype=torch.long)
g = torch.Generator().manual_seed(5)
for b in range(Bn):
    for s in range(L):
        own = s // B
        earlier = torch.randperm(own, generator=g)
        row = [own] + [int(earlier[i]) if i < own else 0 for i in range(K - 1)]
        topk[b*L+s, :, :] = torch.tensor(row)
scale = 1 / math.sqrt(Dqk)
pos = torch.arange(B)
def fwd(q, k, v):
    outs = []
    for b in range(Bn):
        qb, kb, vb = q[b*L:(b+1)*L], k[b*L:(b+1)*L], v[b*L:(b+1)*L]
        idx = (topk[b*L:(b+1)*L, :, :, None] * B + pos).reshape(L, N2, K*B)   # (L, N2, KB)
        kv_idx = idx.permute(1, 0, 2)                                             # (N2, L, KB)
        ks = kb.permute(1, 0, 2)[torch.arange(N2)[:, None, None], kv_idx]         # (N2, L, KB, Dqk)
        vs = vb.permute(1, 0, 2)[torch.arange(N2)[:, None, None], kv_idx]         # (N2, L, KB, Dv)
        qg = qb.reshape(L, N2, G, Dqk).permute(1, 0, 2, 3)                        # (N2, L, G, Dqk)
        s = torch.einsum('nlgd,nlkd->nlgk', qg, ks) * scale
        mask = kv_idx[:, :, None, :] > torch.arange(L)[None, :, None, None]
        s = s.masked_fill(mask, float('-inf'))
        p = torch.softmax(s, dim=-1)
        o = torch.einsum('nlgk,nlkd->nlgd', p, vs)
        outs.append(o.permute(1, 0, 2, 3).reshape(L, N1, Dv))
    return torch.cat(outs)
o = fwd(q, k, v); go = torch.randn_like(o)
for _ in range(2):
    q.grad = k.grad = v.grad = None; o = fwd(q, k, v); o.backward(go)
tf, tb = [], []
for _ in range(5):
    q.grad = k.grad = v.grad = None
    t0 = time.perf_counter(); o = fwd(q, k, v); t1 = time.perf_counter(); o.backward(go); t2 = time.perf_counter()
    tf.append(t1-t0); tb.append(t2-t1)
tf.sort(); tb.sort()
print(f"threads={torch.get_num_threads()} fwd_ms={tf[2]*1e3:.1f} bwd_ms={tb[2]*1e3:.1f}")
