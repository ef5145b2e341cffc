#!/usr/bin/python3
"""The PyTorch peer of bench/nsa_compress (issue text): the same case in fp32 with autograd, median of
five timed runs after warm-up. Usage: /usr/bin/python3 torch_peer.py [THREADS] [variant].
Optional: prints "skipped: torch not available" and exits 0 without python3-torch."""
try:
    import torch
except ImportError:
    print("skipped: torch not available"); raise SystemExit(0)
import time, sys, math
torch.set_num_threads(int(sys.argv[1]) if len(sys.argv)>1 else 2)
B,L,N,D,l,d=4,8192,4,128,32,16
if len(sys.argv)>2: l,d=64,32
x=torch.randn(B*L,N,D,requires_grad=True); w=torch.randn(l,N,requires_grad=True)
def fwd(x,w):
    outs=[]
    for b in range(B):
        seq=x[b*L:(b+1)*L]             # (L,N,D)
        win=seq.unfold(0,l,d)          # (n_b, N, D, l)
        outs.append(torch.einsum('cndj,jn->cnd',win,w))
    return torch.cat(outs)
o=fwd(x,w); g=torch.randn_like(o)
for _ in range(3):
    x.grad=None; w.grad=None; o=fwd(x,w); o.backward(g)
tf=[];tb=[]
for _ in range(10):
    x.grad=None; w.grad=None
    t0=time.perf_counter(); o=fwd(x,w); t1=time.perf_counter(); o.backward(g); t2=time.perf_counter()
    tf.append(t1-t0); tb.append(t2-t1)
tf.sort(); tb.sort()
print(f"threads={torch.get_num_threads()} l={l} d={d} fwd_ms={tf[5]*1e3:.1f} bwd_ms={tb[5]*1e3:.1f}")
