#!/usr/bin/python3
"""The PyTorch peer of bench/multi_scale_deformable_attention (issue 9): the pure-PyTorch MSDA that
CPU users of mmcv run (F.grid_sample per level, bilinear, zeros, align_corners=False, weighted sum),
forward and autograd backward, on the benchmark's cases; median of seven timed runs after two
warm-ups. Locations as the benchmark draws them: uniform in [0, 1], or detr (each query's
reference point, the pixel centre for an encoder query, plus per-level offsets of up to 4 pixels).
Usage: /usr/bin/python3 torch_peer.py [THREADS] [QUERIES] [fp32|bf16] [uniform|detr].
Optional: prints "skipped: torch not available" and exits 0 without python3-torch."""
try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("skipped: torch not available"); raise SystemExit(0)
import time, sys
torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
Q = int(sys.argv[2]) if len(sys.argv)>2 else 5440
dt = torch.bfloat16 if len(sys.argv)>3 and sys.argv[3]=='bf16' else torch.float32
bs,M,C,L,P=2,8,32,4,4
shapes=[(64,64),(32,32),(16,16),(8,8)]
keys=sum(h*w for h,w in shapes)
def msda(value, shapes, loc, attn):
    bs,_,M,C=value.shape; _,Q,_,L,P,_=loc.shape
    vl=value.split([h*w for h,w in shapes],dim=1)
    grids=2*loc-1
    outs=[]
    for l,(h,w) in enumerate(shapes):
        v=vl[l].flatten(2).transpose(1,2).reshape(bs*M,C,h,w)
        g=grids[:,:,:,l].transpose(1,2).flatten(0,1)
        outs.append(F.grid_sample(v,g,mode='bilinear',padding_mode='zeros',align_corners=False))
    a=attn.transpose(1,2).reshape(bs*M,1,Q,L*P)
    o=(torch.stack(outs,dim=-2).flatten(-2)*a).sum(-1).view(bs,M*C,Q)
    return o.transpose(1,2).reshape(bs,Q,M,C)
v=(torch.rand(bs,keys,M,C)*2-1).to(dt).requires_grad_()
def detr_locations():
    refs=torch.rand(Q,2)
    first=0
    for h,w in shapes:  # encoder queries are the pixels of all levels in order
        n=min(max(Q-first,0),h*w)
        idx=torch.arange(n)
        refs[first:first+n,0]=((idx%w).double()+0.5)/w
        refs[first:first+n,1]=((idx//w).double()+0.5)/h
        first+=h*w
    sizes=torch.tensor([[w,h] for h,w in shapes],dtype=torch.float64).view(1,1,1,L,1,2)
    offsets=torch.rand(bs,Q,M,L,P,2,dtype=torch.float64)*8-4
    return refs.double().view(1,Q,1,1,1,2)+offsets/sizes
kind=sys.argv[4] if len(sys.argv)>4 else 'uniform'
loc=(detr_locations() if kind=='detr' else torch.rand(bs,Q,M,L,P,2)).to(dt).requires_grad_()
at=torch.rand(bs,Q,M,L,P).to(dt).requires_grad_()
g=(torch.rand(bs,Q,M,C)*2-1).to(dt)
try:
    for _ in range(2):
        o=msda(v,shapes,loc,at); o.backward(g)
except RuntimeError as e:  # torch 1.13's CPU grid_sample has no bfloat16 kernel
    print(f"skipped {dt}: {e}"); raise SystemExit(0)
tf=[];tb=[]
for _ in range(7):
    v.grad=loc.grad=at.grad=None
    t0=time.perf_counter(); o=msda(v,shapes,loc,at); t1=time.perf_counter(); o.backward(g); t2=time.perf_counter()
    tf.append(t1-t0); tb.append(t2-t1)
tf.sort(); tb.sort()
print(f"threads={torch.get_num_threads()} Q={Q} {dt} {kind} fwd_ms={tf[3]*1e3:.1f} bwd_ms={tb[3]*1e3:.1f} fwd+bwd={(tf[3]+tb[3])*1e3:.1f}")
