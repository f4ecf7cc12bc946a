#!/usr/bin/python3
"""Export the fourteenth held-out set of the onnxruntime profile (models.txt, set heldout14):
architectures and shapes not used anywhere in the project before (`git grep -i NAME` empty for
each), random weights, exported as the other held-out sets are (heldout_export.py). Written and
committed in session 18 AFTER two changes to the profile and BEFORE any of these models ran in
onnxruntime:
  - dims computed at run time (a Reshape or Slice whose shape or bounds come from a Shape over a
    symbolic dim) are unknown to onnxruntime's planner, which then reuses no buffer by shape
    there (the importer's TP_NODE_DIMS_AT_RUNTIME; ReshapeFusion's constant shapes excepted);
  - a weight several kernels pack: the largest further packed copy counted once more as a heap
    hole that may stay.
So the set is mostly transformers with symbolic batch and sequence dims (the class the first
change moved): a windowed-attention convnet, a large vision transformer, a BERT-like encoder
whose head reshapes onnxruntime fuses to constants, a causal decoder whose head reshapes keep a
-1, and an encoder that applies one layer six times (its weights packed by six kernels each).

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
Usage: export_heldout14.py [--out DIR] [NAME ...]   (default DIR .fixtures-local/heldout14)
"""
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_models as em  # noqa: E402
import heldout_export  # noqa: E402


def minilm_l6():
    """A BERT-like encoder (scripts/export_models.py's Bert): vocabulary 30,522, six layers of 384
    with 12 heads and a feed-forward of 1,536; batch and sequence symbolic, 4 x 64 tokens."""
    torch.manual_seed(0)
    m = em.Bert(vocab=30522, d=384, layers=6, heads=12, ff=1536).eval()
    ids = torch.randint(0, 30522, (4, 64))
    mask = torch.ones(4, 64, dtype=torch.long)
    tok = torch.zeros(4, 64, dtype=torch.long)
    dyn = {n: {0: "batch", 1: "seq"} for n in ("input_ids", "attention_mask", "token_type_ids", "hidden")}
    dyn["pooled"] = {0: "batch"}
    shapes = {n: ([4, 64], "int64") for n in ("input_ids", "attention_mask", "token_type_ids")}
    return m, (ids, mask, tok), ["input_ids", "attention_mask", "token_type_ids"], ["hidden", "pooled"], dyn, \
        shapes, {"batch": 4, "seq": 64}


class CausalBlock(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d)
        self.ln2 = nn.LayerNorm(d)
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.size()
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.h, -1).transpose(1, 2) for z in (q, k, v))
        s = q @ k.transpose(-1, -2) / math.sqrt(d // self.h)
        causal = torch.ones(t, t, dtype=torch.bool).triu(1)
        a = F.softmax(s.masked_fill(causal, float("-inf")), dim=-1) @ v
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.down(F.gelu(self.up(self.ln2(x))))


class CausalLm(nn.Module):
    """A decoder-only language model: vocabulary 12,000 (input and output embedding tied),
    learned positions up to 256, five blocks of 320 with 5 heads (head reshapes with a -1)."""

    def __init__(self, vocab=12000, d=320, layers=5, heads=5, ctx=256):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(CausalBlock(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)

    def forward(self, ids):
        t = ids.size(1)
        x = self.emb(ids) + self.pos(torch.arange(t).unsqueeze(0))
        for blk in self.blocks:
            x = blk(x)
        return self.ln(x) @ self.emb.weight.t()


def causal_lm_d320():
    torch.manual_seed(0)
    ids = torch.randint(0, 12000, (2, 96))
    return CausalLm().eval(), (ids,), ["ids"], ["logits"], {
        "ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}, {
        "ids": ([2, 96], "int64")
    }, {"batch": 2, "seq": 96}


class UniversalTransformer(nn.Module):
    """One post-norm transformer layer of 192 (6 heads, feed-forward 768) applied six times (its
    weights shared), over 2 x 100 frames of 80 features projected to 192, mean-pooled to 10
    classes."""

    def __init__(self, feats=80, d=192, steps=6):
        super().__init__()
        self.inp = nn.Linear(feats, d)
        self.layer = nn.TransformerEncoderLayer(d, 6, 4 * d, batch_first=True)
        self.steps = steps
        self.out = nn.Linear(d, 10)

    def forward(self, x):
        h = self.inp(x)
        for _ in range(self.steps):
            h = self.layer(h)
        return self.out(h.mean(dim=1))


def universal_transformer_d192():
    torch.manual_seed(0)
    x = torch.randn(2, 100, 80)
    return UniversalTransformer().eval(), (x,), ["frames"], ["classes"], {
        "frames": {0: "batch", 1: "time"}, "classes": {0: "batch"}}, {
        "frames": ([2, 100, 80], "float32")
    }, {"batch": 2, "time": 100}


def models():
    import torchvision.models as tvm

    return {
        "maxvit_t": (em.vision(tvm.maxvit_t), False),
        "vit_l_32": (em.vision(tvm.vit_l_32), False),
        "minilm_l6": (minilm_l6, True),
        "causal_lm_d320": (causal_lm_d320, True),
        "universal_transformer_d192": (universal_transformer_d192, True),
    }


if __name__ == "__main__":
    sys.exit(heldout_export.run(models, "heldout14"))
