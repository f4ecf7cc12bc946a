#!/usr/bin/python3
"""Export the nineteenth held-out set of the onnxruntime profile (models.txt, set heldout19):
architectures not used anywhere in the project before, random weights, their weights inside the
.onnx (NAME_embedded), exported as the other held-out sets are (heldout_export.py). Written and
committed in session 35 BEFORE any of these models ran in onnxruntime or in tensorplan, and
before any rule of that session changed: a blind check of the memory profile and of the latency
model (bench/accuracy/models.txt) on model families people deploy today:

- llama_step: a LLaMA-style decoder step (RMSNorm, rotary positions, grouped-query attention
  with 8 query and 2 key/value heads, SwiGLU MLP), 6 layers of width 512, a vocabulary of
  16,000; 4 new tokens after 252 cached ones (past key/values as inputs, present ones as
  outputs, as generation loops run it).
- t5_encoder: a T5-style encoder (RMSNorm, relative position buckets as a learned bias
  added to every layer's scores, ReLU MLP without biases), 6 layers of width 384, 128 tokens.
- yolo_like: a small one-stage detector (CSP blocks, SiLU, SPPF max-pool pyramid, a PAN neck
  with nearest upsampling and Concat, three heads) at 320 x 320, no NMS.
- ldm_unet: a latent-diffusion U-Net (GroupNorm + SiLU residual blocks with a timestep
  embedding, self- and cross-attention on a 77 x 256 context at the two inner levels, nearest
  upsampling, skip Concats), a 4 x 32 x 32 latent.

Run with Debian's /usr/bin/python3 (python3-torch, python3-onnx).
Usage: export_heldout19.py [--out DIR] [NAME ...]  (default DIR .fixtures-local/heldout19)
"""
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import heldout_export  # noqa: E402


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.w = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.w


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


class LlamaLayer(nn.Module):
    def __init__(self, d, heads, kv_heads, ffn):
        super().__init__()
        self.h, self.kv, self.hd = heads, kv_heads, d // heads
        self.n1, self.n2 = RMSNorm(d), RMSNorm(d)
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.gate = nn.Linear(d, ffn, bias=False)
        self.up = nn.Linear(d, ffn, bias=False)
        self.down = nn.Linear(ffn, d, bias=False)

    def forward(self, x, cos, sin, past_k, past_v, mask):
        b, t, d = x.shape
        h = self.n1(x)
        q = self.q(h).view(b, t, self.h, self.hd).transpose(1, 2)
        k = self.k(h).view(b, t, self.kv, self.hd).transpose(1, 2)
        v = self.v(h).view(b, t, self.kv, self.hd).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        rep = self.h // self.kv
        n = k.shape[2]
        kk = k[:, :, None].expand(b, self.kv, rep, n, self.hd).reshape(b, self.h, n, self.hd)
        vv = v[:, :, None].expand(b, self.kv, rep, n, self.hd).reshape(b, self.h, n, self.hd)
        s = q @ kk.transpose(-1, -2) / math.sqrt(self.hd) + mask
        a = (s.softmax(-1) @ vv).transpose(1, 2).reshape(b, t, d)
        x = x + self.o(a)
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h)), k, v


class LlamaStep(nn.Module):
    def __init__(self, vocab=16000, d=512, layers=6, heads=8, kv_heads=2, ffn=1408):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(LlamaLayer(d, heads, kv_heads, ffn) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        hd = d // heads
        self.register_buffer("inv", 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd)))

    def forward(self, ids, positions, mask, *past):
        x = self.emb(ids)
        f = positions.float()[:, :, None] * self.inv[None, None, :]
        f = torch.cat([f, f], dim=-1)[:, None]
        cos, sin = f.cos(), f.sin()
        out = []
        for i, layer in enumerate(self.layers):
            x, k, v = layer(x, cos, sin, past[2 * i], past[2 * i + 1], mask)
            out += [k, v]
        return (self.head(self.norm(x)),) + tuple(out)


def llama_step():
    torch.manual_seed(0)
    layers, kv, hd, past, new = 6, 2, 64, 252, 4
    m = LlamaStep(layers=layers)
    ids = torch.randint(0, 16000, (1, new))
    pos = torch.arange(past, past + new)[None]
    mask = torch.zeros(1, 1, new, past + new)
    pk = [torch.randn(1, kv, past, hd) for _ in range(2 * layers)]
    names = ["input_ids", "positions", "mask"] + ["past_%d_%s" % (i, c) for i in range(layers)
                                                  for c in "kv"]
    outs = ["logits"] + ["present_%d_%s" % (i, c) for i in range(layers) for c in "kv"]
    dyn = {"input_ids": {0: "batch", 1: "new"}, "positions": {0: "batch", 1: "new"},
           "mask": {0: "batch", 2: "new", 3: "total"}, "logits": {0: "batch", 1: "new"}}
    shapes = {"input_ids": ([1, new], "int64"), "positions": ([1, new], "int64"),
              "mask": ([1, 1, new, past + new], "float32")}
    for n in names[3:]:
        dyn[n] = {0: "batch", 2: "past"}
        shapes[n] = ([1, kv, past, hd], "float32")
    for n in outs[1:]:
        dyn[n] = {0: "batch", 2: "total"}
    return (m.eval(), (ids, pos, mask, *pk), names, outs, dyn, shapes,
            {"batch": 1, "new": new, "past": past, "total": past + new})


class T5Layer(nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.n1, self.n2 = RMSNorm(d), RMSNorm(d)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.wi = nn.Linear(d, ffn, bias=False)
        self.wo = nn.Linear(ffn, d, bias=False)

    def forward(self, x, bias):
        b, t, d = x.shape
        q, k, v = self.qkv(self.n1(x)).view(b, t, 3, self.h, self.hd).permute(2, 0, 3, 1, 4)
        s = q @ k.transpose(-1, -2) + bias
        x = x + self.o((s.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.wo(F.relu(self.wi(self.n2(x))))


class T5Encoder(nn.Module):
    def __init__(self, vocab=8000, d=384, layers=6, heads=6, ffn=1536, buckets=32, dist=128):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.rel = nn.Embedding(buckets, heads)
        self.layers = nn.ModuleList(T5Layer(d, heads, ffn) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.buckets, self.dist = buckets, dist

    def bucket(self, rel):
        n = self.buckets // 2
        ret = (rel > 0).long() * n
        r = rel.abs()
        exact = n // 2
        large = exact + (torch.log(r.float().clamp(min=1) / exact) / math.log(self.dist / exact) *
                         (n - exact)).long()
        large = torch.minimum(large, torch.full_like(large, n - 1))
        return ret + torch.where(r < exact, r, large)

    def forward(self, ids):
        t = ids.shape[1]
        pos = torch.arange(t, device=ids.device)
        bias = self.rel(self.bucket(pos[None, :] - pos[:, None])).permute(2, 0, 1)[None]
        x = self.emb(ids)
        for layer in self.layers:
            x = layer(x, bias)
        return self.norm(x)


def t5_encoder():
    torch.manual_seed(0)
    ids = torch.randint(0, 8000, (1, 128))
    return (T5Encoder().eval(), (ids,), ["input_ids"], ["hidden"],
            {"input_ids": {0: "batch"}, "hidden": {0: "batch"}},
            {"input_ids": ([1, 128], "int64")}, {"batch": 1})


def cbs(cin, cout, k=1, s=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, (k - 1) // 2, bias=False), nn.BatchNorm2d(cout),
                         nn.SiLU())


class CSP(nn.Module):
    def __init__(self, cin, cout, n, shortcut=True):
        super().__init__()
        c = cout // 2
        self.a, self.b = cbs(cin, c), cbs(cin, c)
        self.m = nn.ModuleList(nn.Sequential(cbs(c, c), cbs(c, c, 3)) for _ in range(n))
        self.shortcut = shortcut
        self.out = cbs(2 * c, cout)

    def forward(self, x):
        y = self.a(x)
        for m in self.m:
            y = y + m(y) if self.shortcut else m(y)
        return self.out(torch.cat([y, self.b(x)], 1))


class SPPF(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.a, self.out = cbs(c, c // 2), cbs(2 * c, c)
        self.pool = nn.MaxPool2d(5, 1, 2)

    def forward(self, x):
        x = self.a(x)
        y1 = self.pool(x)
        y2 = self.pool(y1)
        return self.out(torch.cat([x, y1, y2, self.pool(y2)], 1))


class YoloLike(nn.Module):
    def __init__(self, w=32, classes=20, anchors=3):
        super().__init__()
        self.stem = cbs(3, w, 6, 2)
        self.s1 = nn.Sequential(cbs(w, 2 * w, 3, 2), CSP(2 * w, 2 * w, 1))
        self.s2 = nn.Sequential(cbs(2 * w, 4 * w, 3, 2), CSP(4 * w, 4 * w, 2))
        self.s3 = nn.Sequential(cbs(4 * w, 8 * w, 3, 2), CSP(8 * w, 8 * w, 3))
        self.s4 = nn.Sequential(cbs(8 * w, 16 * w, 3, 2), CSP(16 * w, 16 * w, 1), SPPF(16 * w))
        self.l4 = cbs(16 * w, 8 * w)
        self.c3 = CSP(16 * w, 8 * w, 1, False)
        self.l3 = cbs(8 * w, 4 * w)
        self.c2 = CSP(8 * w, 4 * w, 1, False)
        self.d2 = cbs(4 * w, 4 * w, 3, 2)
        self.n3 = CSP(8 * w, 8 * w, 1, False)
        self.d3 = cbs(8 * w, 8 * w, 3, 2)
        self.n4 = CSP(16 * w, 16 * w, 1, False)
        o = anchors * (5 + classes)
        self.heads = nn.ModuleList(nn.Conv2d(c, o, 1) for c in (4 * w, 8 * w, 16 * w))

    def forward(self, x):
        p2 = self.s2(self.s1(self.stem(x)))
        p3 = self.s3(p2)
        p4 = self.s4(p3)
        h4 = self.l4(p4)
        u3 = self.c3(torch.cat([F.interpolate(h4, scale_factor=2.0, mode="nearest"), p3], 1))
        h3 = self.l3(u3)
        o2 = self.c2(torch.cat([F.interpolate(h3, scale_factor=2.0, mode="nearest"), p2], 1))
        o3 = self.n3(torch.cat([self.d2(o2), h3], 1))
        o4 = self.n4(torch.cat([self.d3(o3), h4], 1))
        outs = [h(o).flatten(2) for h, o in zip(self.heads, (o2, o3, o4))]
        return torch.cat(outs, 2)


def yolo_like():
    torch.manual_seed(0)
    x = torch.randn(1, 3, 320, 320)
    return (YoloLike().eval(), (x,), ["images"], ["predictions"],
            {"images": {0: "batch"}, "predictions": {0: "batch"}},
            {"images": ([1, 3, 320, 320], "float32")}, {"batch": 1})


class ResBlock(nn.Module):
    def __init__(self, cin, cout, temb):
        super().__init__()
        self.n1, self.n2 = nn.GroupNorm(32, cin), nn.GroupNorm(32, cout)
        self.c1, self.c2 = nn.Conv2d(cin, cout, 3, padding=1), nn.Conv2d(cout, cout, 3, padding=1)
        self.t = nn.Linear(temb, cout)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, t):
        h = self.c1(F.silu(self.n1(x))) + self.t(t)[:, :, None, None]
        return self.skip(x) + self.c2(F.silu(self.n2(h)))


class AttnBlock(nn.Module):
    def __init__(self, c, ctx, heads=4):
        super().__init__()
        self.norm = nn.GroupNorm(32, c)
        self.proj_in, self.proj_out = nn.Conv2d(c, c, 1), nn.Conv2d(c, c, 1)
        self.ln1, self.ln2, self.ln3 = nn.LayerNorm(c), nn.LayerNorm(c), nn.LayerNorm(c)
        self.self_attn = nn.MultiheadAttention(c, heads, batch_first=True)
        self.cross = nn.MultiheadAttention(c, heads, kdim=ctx, vdim=ctx, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(c, 4 * c), nn.GELU(), nn.Linear(4 * c, c))

    def forward(self, x, ctx):
        b, c, hh, ww = x.shape
        h = self.proj_in(self.norm(x)).flatten(2).transpose(1, 2)
        a = self.ln1(h)
        h = h + self.self_attn(a, a, a, need_weights=False)[0]
        h = h + self.cross(self.ln2(h), ctx, ctx, need_weights=False)[0]
        h = h + self.ff(self.ln3(h))
        return x + self.proj_out(h.transpose(1, 2).reshape(b, c, hh, ww))


class LdmUNet(nn.Module):
    def __init__(self, ch=(64, 128, 256), ctx=256, temb=256):
        super().__init__()
        self.temb = nn.Sequential(nn.Linear(ch[0], temb), nn.SiLU(), nn.Linear(temb, temb))
        self.ch0 = ch[0]
        self.inp = nn.Conv2d(4, ch[0], 3, padding=1)
        self.down = nn.ModuleList()
        self.dattn = nn.ModuleList()
        self.pool = nn.ModuleList()
        c = ch[0]
        for i, w in enumerate(ch):
            self.down.append(ResBlock(c, w, temb))
            self.dattn.append(AttnBlock(w, ctx) if i > 0 else nn.Identity())
            self.pool.append(nn.Conv2d(w, w, 3, 2, 1) if i < len(ch) - 1 else nn.Identity())
            c = w
        self.mid1, self.mattn, self.mid2 = ResBlock(c, c, temb), AttnBlock(c, ctx), ResBlock(c, c, temb)
        self.up = nn.ModuleList()
        self.uattn = nn.ModuleList()
        self.upconv = nn.ModuleList()
        for i, w in reversed(list(enumerate(ch))):
            self.up.append(ResBlock(c + w, w, temb))
            self.uattn.append(AttnBlock(w, ctx) if i > 0 else nn.Identity())
            self.upconv.append(nn.Conv2d(w, w, 3, padding=1) if i > 0 else nn.Identity())
            c = w
        self.out = nn.Sequential(nn.GroupNorm(32, c), nn.SiLU(), nn.Conv2d(c, 4, 3, padding=1))

    def forward(self, latent, timestep, context):
        half = self.ch0 // 2
        f = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half)
        e = timestep.float()[:, None] * f[None]
        t = self.temb(torch.cat([e.cos(), e.sin()], 1))
        x = self.inp(latent)
        skips = []
        for res, attn, pool in zip(self.down, self.dattn, self.pool):
            x = res(x, t)
            x = attn(x, context) if isinstance(attn, AttnBlock) else x
            skips.append(x)
            x = pool(x)
        x = self.mid2(self.mattn(self.mid1(x, t), context), t)
        for i, (res, attn, conv) in enumerate(zip(self.up, self.uattn, self.upconv)):
            x = res(torch.cat([x, skips.pop()], 1), t)
            x = attn(x, context) if isinstance(attn, AttnBlock) else x
            if isinstance(conv, nn.Conv2d):
                x = conv(F.interpolate(x, scale_factor=2.0, mode="nearest"))
        return self.out(x)


def ldm_unet():
    torch.manual_seed(0)
    lat, ts, ctx = torch.randn(1, 4, 32, 32), torch.tensor([500]), torch.randn(1, 77, 256)
    return (LdmUNet().eval(), (lat, ts, ctx), ["latent", "timestep", "context"], ["noise"],
            {"latent": {0: "batch"}, "timestep": {0: "batch"}, "context": {0: "batch"},
             "noise": {0: "batch"}},
            {"latent": ([1, 4, 32, 32], "float32"), "timestep": ([1], "int64"),
             "context": ([1, 77, 256], "float32")}, {"batch": 1})


class Detections(nn.Module):
    """A torchvision detector's first image's boxes, scores and labels as a tuple."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, image):
        d = self.m([image])[0]
        return d["boxes"], d["scores"], d["labels"]


def ssdlite():
    """torchvision's SSDlite (MobileNetV3-Large, 320 x 320, 91 classes): its postprocessing
    (per-class score threshold, TopK, batched NonMaxSuppression) is in the graph. NOT held out:
    added after the set above was measured, when tensorplan first met it (set seen19 of
    models.txt; docs/runtime.md, "Session 35")."""
    import torchvision.models.detection as det

    torch.manual_seed(0)
    m = Detections(det.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None))
    x = torch.randn(3, 320, 320)
    return (m.eval(), (x,), ["image"], ["boxes", "scores", "labels"], {},
            {"image": ([3, 320, 320], "float32")}, {})


def models():
    return {
        "llama_step": (llama_step, True),
        "t5_encoder": (t5_encoder, True),
        "yolo_like": (yolo_like, True),
        "ldm_unet": (ldm_unet, True),
        "ssdlite": (ssdlite, True),
    }


if __name__ == "__main__":
    sys.exit(heldout_export.run(models, "heldout19"))
