#!/usr/bin/python3
"""Export the sixth held-out set of the onnxruntime profile (models.txt, set heldout6):
architectures and shapes not used anywhere in the project before session 14 (not in models.txt's
other sets, not in the time or accuracy benchmarks), random weights, exported as the other
held-out sets are (heldout_export.py). Fixed and committed BEFORE any rule of session 14 changed
and before any of these models ran in onnxruntime.

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
Usage: export_heldout6.py [--out DIR] [NAME ...]   (default DIR .fixtures-local/heldout6)
"""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_models as em  # noqa: E402
import heldout_export  # noqa: E402


class Crnn(nn.Module):
    """A text-line recogniser: four 2-D Conv + BatchNorm blocks over a 32 × 256 grey image (height
    pooled to 1), a bidirectional LSTM of 2 × 192 over the 64 columns, a linear head of 80
    characters per column."""

    def __init__(self, chans=(64, 128, 192, 256), hidden=192, classes=80):
        super().__init__()
        layers, c_in = [], 1
        pools = [(2, 2), (2, 2), (2, 1), (4, 1)]
        for c, p in zip(chans, pools):
            layers += [nn.Conv2d(c_in, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(), nn.MaxPool2d(p)]
            c_in = c
        self.conv = nn.Sequential(*layers)
        self.rnn = nn.LSTM(c_in, hidden, bidirectional=True, batch_first=True)
        self.head = nn.Linear(2 * hidden, classes)

    def forward(self, x):
        y = self.conv(x).squeeze(2).transpose(1, 2)
        y, _ = self.rnn(y)
        return self.head(y)


def crnn():
    torch.manual_seed(0)
    x = torch.randn(1, 1, 32, 256)
    return Crnn(), (x,), ["image"], ["logits"], {"image": {0: "batch", 3: "width"},
                                                 "logits": {0: "batch", 1: "columns"}}, {
        "image": ([1, 1, 32, 256], "float32")
    }, {"batch": 1, "width": 256}


class LoopedEncoder(nn.Module):
    """A sentence encoder with one transformer layer (d 256, 4 heads, ff 1024) applied four times
    (its weights shared by every pass: each initializer read by four MatMul nodes), a vocabulary
    of 8,000, mean pooling, a 2-way head."""

    def __init__(self, vocab=8000, d=256, heads=4, ff=1024, passes=4, classes=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True)
        self.passes = passes
        self.head = nn.Linear(d, classes)

    def forward(self, ids):
        y = self.emb(ids)
        for _ in range(self.passes):
            y = self.layer(y)
        return self.head(y.mean(dim=1))


def looped_encoder():
    torch.manual_seed(0)
    ids = torch.randint(0, 8000, (2, 64))
    return LoopedEncoder(), (ids,), ["input_ids"], ["logits"], {
        "input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch"}
    }, {"input_ids": ([2, 64], "int64")}, {"batch": 2, "seq": 64}


class CharGruTied(nn.Module):
    """A word-piece GRU language model (2 × 512) whose output layer is its input embedding (one
    initializer of 12,000 × 512 read by the Gather and by the output Gemm, transB)."""

    def __init__(self, vocab=12000, d=512, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.gru = nn.GRU(d, d, num_layers=layers, batch_first=True)
        self.bias = nn.Parameter(torch.zeros(vocab))

    def forward(self, ids):
        y, _ = self.gru(self.emb(ids))
        return F.linear(y.reshape(-1, y.size(2)), self.emb.weight, self.bias)


def char_gru_tied():
    torch.manual_seed(0)
    ids = torch.randint(0, 12000, (1, 40))
    return CharGruTied(), (ids,), ["input_ids"], ["logits"], {
        "input_ids": {0: "batch", 1: "seq"}, "logits": {0: "tokens"}
    }, {"input_ids": ([1, 40], "int64")}, {"batch": 1, "seq": 40}


class MixerBlock(nn.Module):
    def __init__(self, tokens, d, tok_ff, ch_ff):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.tok = nn.Sequential(nn.Linear(tokens, tok_ff), nn.GELU(), nn.Linear(tok_ff, tokens))
        self.ch = nn.Sequential(nn.Linear(d, ch_ff), nn.GELU(), nn.Linear(ch_ff, d))

    def forward(self, x):
        x = x + self.tok(self.n1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.ch(self.n2(x))


class PatchMixer(nn.Module):
    """An MLP-Mixer image classifier: 16 × 16 patches of a 160² image (a strided 2-D Conv), 6
    blocks of token and channel MLPs (d 384), 100 classes."""

    def __init__(self, size=160, patch=16, d=384, blocks=6, classes=100):
        super().__init__()
        tokens = (size // patch) ** 2
        self.stem = nn.Conv2d(3, d, patch, stride=patch)
        self.blocks = nn.Sequential(*[MixerBlock(tokens, d, 192, 1536) for _ in range(blocks)])
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        y = self.stem(x).flatten(2).transpose(1, 2)
        return self.head(self.norm(self.blocks(y)).mean(dim=1))


def patch_mixer():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 160, 160)
    return PatchMixer(), (x,), ["input"], ["logits"], {"input": {0: "batch"}, "logits": {0: "batch"}}, {
        "input": ([2, 3, 160, 160], "float32")
    }, {"batch": 2}


class ConformerLite(nn.Module):
    """A small speech encoder (under 5 MiB of weights): a Conv1d subsampling stem over 80 mel
    bins, two blocks of self-attention (d 144, 4 heads) and a depthwise Conv1d module (k 15),
    each with a half-step feed-forward, a CTC head of 32 tokens."""

    def __init__(self, mels=80, d=144, heads=4, blocks=2, classes=32):
        super().__init__()
        self.stem = nn.Conv1d(mels, d, 3, stride=2, padding=1)
        self.blocks = nn.ModuleList()
        for _ in range(blocks):
            self.blocks.append(nn.ModuleDict({
                "ff": nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d)),
                "ln": nn.LayerNorm(d),
                "att": nn.MultiheadAttention(d, heads, batch_first=True),
                "conv": nn.Sequential(nn.Conv1d(d, d, 15, padding=7, groups=d), nn.BatchNorm1d(d), nn.SiLU(),
                                      nn.Conv1d(d, d, 1)),
            }))
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        y = self.stem(x).transpose(1, 2)
        for b in self.blocks:
            y = y + 0.5 * b["ff"](y)
            z = b["ln"](y)
            y = y + b["att"](z, z, z, need_weights=False)[0]
            y = y + b["conv"](y.transpose(1, 2)).transpose(1, 2)
        return self.head(y)


def conformer_lite():
    torch.manual_seed(0)
    x = torch.randn(1, 80, 300)
    return ConformerLite(), (x,), ["mels"], ["logits"], {"mels": {0: "batch", 2: "frames"},
                                                         "logits": {0: "batch", 1: "steps"}}, {
        "mels": ([1, 80, 300], "float32")
    }, {"batch": 1, "frames": 300}


def models():
    import torchvision.models as tv

    return {
        "regnet_x_1_6gf": (em.vision(tv.regnet_x_1_6gf), False),
        "efficientnet_b3": (em.vision(tv.efficientnet_b3, 300), False),
        "densenet161": (em.vision(tv.densenet161), False),
        "resnet152": (em.vision(tv.resnet152), False),
        "shufflenet_v2_x2_0": (em.vision(tv.shufflenet_v2_x2_0), False),
        "crnn": (crnn, True),
        "looped_encoder": (looped_encoder, True),
        "char_gru_tied": (char_gru_tied, True),
        "patch_mixer": (patch_mixer, True),
        "conformer_lite": (conformer_lite, True),
    }


if __name__ == "__main__":
    sys.exit(heldout_export.run(models, "heldout6"))
