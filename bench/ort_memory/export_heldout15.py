#!/usr/bin/python3
"""Export the fifteenth held-out set of the onnxruntime profile (models.txt, set heldout15):
architectures not used anywhere in the project before (`git grep -i NAME` empty for each),
random weights, their weights inside the .onnx, exported as the other held-out sets are
(heldout_export.py). Written and committed in session 28 AFTER the arena's regions were placed
in the heap holes the session's creation leaves (ort_load.c) and the intercept of models without
an NCHWc Conv was re-derived (3,183,250 bytes), and BEFORE any of these models ran in
onnxruntime. Models whose embedded weights are pre-packed (the holes) and whose activations
need an arena of a few MiB (what the change moves): a Perceiver (latents cross-attending to
inputs), an N-BEATS forecaster (stacks of fully connected blocks), a PointNet classifier (1-D
convolutions of kernel 1, a max over points), an encoder-decoder transformer (nn.Transformer),
a TabTransformer (categorical columns embedded, attention across the columns, an MLP).

Run with Debian's /usr/bin/python3 (python3-torch, python3-onnx).
Usage: export_heldout15.py [--out DIR] [NAME ...]   (default DIR .fixtures-local/heldout15)
"""
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_models as em  # noqa: E402
import heldout_export  # noqa: E402


class Perceiver(nn.Module):
    """512 input tokens of 64 features projected to 256; 64 learned latents attend to them once
    (8 heads), four self-attention layers over the latents (feed-forward 1,024), 10 classes."""

    def __init__(self, feat=64, d=256, latents=64, layers=4, classes=10):
        super().__init__()
        self.proj = nn.Linear(feat, d)
        self.latents = nn.Parameter(torch.randn(1, latents, d) * 0.02)
        self.cross = nn.MultiheadAttention(d, 8, batch_first=True)
        self.norm = nn.LayerNorm(d)
        layer = nn.TransformerEncoderLayer(d, 8, 4 * d, batch_first=True)
        self.body = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        kv = self.proj(x)
        q = self.latents.expand(x.shape[0], -1, -1)
        z, _ = self.cross(q, kv, kv, need_weights=False)
        return self.head(self.body(self.norm(z + q)).mean(dim=1))


def perceiver_d256():
    torch.manual_seed(0)
    x = torch.randn(2, 512, 64)
    return Perceiver().eval(), (x,), ["tokens"], ["logits"], {"tokens": {0: "batch"}, "logits": {0: "batch"}}, {
        "tokens": ([2, 512, 64], "float32")
    }, {"batch": 2}


class NBeatsBlock(nn.Module):
    def __init__(self, back, fore, width):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(back, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                                nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.back = nn.Linear(width, back)
        self.fore = nn.Linear(width, fore)

    def forward(self, x):
        h = self.fc(x)
        return self.back(h), self.fore(h)


class NBeats(nn.Module):
    """A forecaster of 24 steps from 168: nine fully connected blocks (four layers of 512 each),
    each removing its backcast from the residual and adding its forecast."""

    def __init__(self, back=168, fore=24, width=512, blocks=9):
        super().__init__()
        self.blocks = nn.ModuleList(NBeatsBlock(back, fore, width) for _ in range(blocks))

    def forward(self, x):
        f = 0
        for b in self.blocks:
            bc, fc = b(x)
            x = x - bc
            f = f + fc
        return f


def nbeats_forecaster():
    torch.manual_seed(0)
    x = torch.randn(64, 168)
    return NBeats().eval(), (x,), ["history"], ["forecast"], {"history": {0: "batch"}, "forecast": {0: "batch"}}, {
        "history": ([64, 168], "float32")
    }, {"batch": 64}


class PointNet(nn.Module):
    """A point-cloud classifier on 2,048 points: shared per-point layers 3 -> 64 -> 128 -> 1,024
    (Conv1d, kernel 1, batch norm), a max over the points, 1,024 -> 512 -> 256 -> 40 classes."""

    def __init__(self, classes=40):
        super().__init__()
        self.point = nn.Sequential(nn.Conv1d(3, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
                                   nn.Conv1d(64, 128, 1), nn.BatchNorm1d(128), nn.ReLU(),
                                   nn.Conv1d(128, 1024, 1), nn.BatchNorm1d(1024), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(1024, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                                  nn.Linear(256, classes))

    def forward(self, pts):
        return self.head(self.point(pts).amax(dim=2))


def pointnet_cls():
    torch.manual_seed(0)
    x = torch.randn(8, 3, 2048)
    return PointNet().eval(), (x,), ["points"], ["logits"], {"points": {0: "batch"}, "logits": {0: "batch"}}, {
        "points": ([8, 3, 2048], "float32")
    }, {"batch": 8}


class Seq2SeqTransformer(nn.Module):
    """A translation model: source and target embeddings of 4,000 x 192, nn.Transformer with two
    encoder and two decoder layers (6 heads, feed-forward 768), a causal target mask, logits
    over 4,000 tokens."""

    def __init__(self, vocab=4000, d=192, tgt_len=48):
        super().__init__()
        self.src = nn.Embedding(vocab, d)
        self.tgt = nn.Embedding(vocab, d)
        self.core = nn.Transformer(d, 6, 2, 2, 4 * d, batch_first=True)
        self.out = nn.Linear(d, vocab)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(tgt_len))

    def forward(self, src, tgt):
        return self.out(self.core(self.src(src), self.tgt(tgt), tgt_mask=self.mask))


def seq2seq_transformer():
    torch.manual_seed(0)
    src = torch.randint(0, 4000, (2, 64))
    tgt = torch.randint(0, 4000, (2, 48))
    return Seq2SeqTransformer().eval(), (src, tgt), ["src", "tgt"], ["logits"], {
        "src": {0: "batch"}, "tgt": {0: "batch"}, "logits": {0: "batch"}}, {
        "src": ([2, 64], "int64"), "tgt": ([2, 48], "int64")
    }, {"batch": 2}


class TabTransformer(nn.Module):
    """A tabular classifier: 16 categorical columns of 1,000 values each embedded to 64 (one
    table per column), four transformer layers across the columns (8 heads, feed-forward 256),
    their flattened output beside 8 normalized numeric columns into an MLP 1,032 -> 512 -> 2."""

    def __init__(self, cols=16, values=1000, d=64, layers=4, numeric=8):
        super().__init__()
        self.tables = nn.ModuleList(nn.Embedding(values, d) for _ in range(cols))
        layer = nn.TransformerEncoderLayer(d, 8, 4 * d, batch_first=True)
        self.body = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.num = nn.LayerNorm(numeric)
        self.head = nn.Sequential(nn.Linear(cols * d + numeric, 512), nn.ReLU(), nn.Linear(512, 2))

    def forward(self, cats, nums):
        x = torch.stack([t(cats[:, i]) for i, t in enumerate(self.tables)], dim=1)
        return self.head(torch.cat([self.body(x).flatten(1), self.num(nums)], dim=1))


def tab_transformer():
    torch.manual_seed(0)
    cats = torch.randint(0, 1000, (256, 16))
    nums = torch.randn(256, 8)
    return TabTransformer().eval(), (cats, nums), ["categorical", "numeric"], ["logits"], {
        "categorical": {0: "batch"}, "numeric": {0: "batch"}, "logits": {0: "batch"}}, {
        "categorical": ([256, 16], "int64"), "numeric": ([256, 8], "float32")
    }, {"batch": 256}


def models():
    return {
        "perceiver_d256": (perceiver_d256, True),
        "nbeats_forecaster": (nbeats_forecaster, True),
        "pointnet_cls": (pointnet_cls, True),
        "seq2seq_transformer": (seq2seq_transformer, True),
        "tab_transformer": (tab_transformer, True),
    }


if __name__ == "__main__":
    sys.exit(heldout_export.run(models, "heldout15"))
