#!/usr/bin/python3
"""Export the fifth held-out set of the onnxruntime profile (models.txt, set heldout5):
architectures and shapes not used anywhere in the project before session 13 (not in models.txt's
other sets, not in the time or accuracy benchmarks), random weights, exported as the other
held-out sets are (heldout_export.py). Fixed and committed BEFORE any rule of session 13 changed
and before any of these models ran in onnxruntime.

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
Usage: export_heldout5.py [--out DIR] [NAME ...]   (default DIR .fixtures-local/heldout5)
"""
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_models as em  # noqa: E402
import heldout_export  # noqa: E402


def video(ctor, frames=8, size=112):
    """A torchvision video classifier (Conv3d) on one clip of FRAMES frames of SIZE²."""

    def make():
        torch.manual_seed(0)
        m = ctor(weights=None)
        x = torch.randn(1, 3, frames, size, size)
        return m, (x,), ["input"], ["logits"], {"input": {0: "batch"}, "logits": {0: "batch"}}, {
            "input": ([1, 3, frames, size, size], "float32")
        }, {"batch": 1}

    return make


class Tcn(nn.Module):
    """A temporal convolutional audio tagger: a Conv1d stem, dilated depthwise-separable Conv1d
    residual blocks (depthwise k 3, pointwise 1) with BatchNorm, max pooling, a linear head."""

    def __init__(self, mels=80, chans=256, blocks=6, classes=50):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv1d(mels, chans, 3, padding=1), nn.BatchNorm1d(chans), nn.ReLU())
        self.blocks = nn.ModuleList()
        for i in range(blocks):
            d = 2 ** (i % 3)
            self.blocks.append(nn.Sequential(
                nn.Conv1d(chans, chans, 3, padding=d, dilation=d, groups=chans),
                nn.BatchNorm1d(chans), nn.ReLU(),
                nn.Conv1d(chans, chans, 1), nn.BatchNorm1d(chans)))
        self.head = nn.Linear(chans, classes)

    def forward(self, x):
        y = self.stem(x)
        for b in self.blocks:
            y = torch.relu(y + b(y))
        return self.head(y.amax(dim=2))


def tcn_audio():
    torch.manual_seed(0)
    x = torch.randn(1, 80, 500)
    return Tcn(), (x,), ["input"], ["logits"], {"input": {0: "batch", 2: "frames"},
                                                "logits": {0: "batch"}}, {
        "input": ([1, 80, 500], "float32")
    }, {"batch": 1, "frames": 500}


class TiedLm(nn.Module):
    """A pre-norm causal transformer language model on nn.TransformerEncoder (3 layers, d 320,
    5 heads) whose output projection is the token embedding (tied weights)."""

    def __init__(self, vocab=16000, d=320, layers=3, heads=5, ff=1280, ctx=128):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True,
                                           norm_first=True)
        self.enc = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)

    def forward(self, ids):
        s = ids.size(1)
        pos = torch.arange(s, dtype=torch.long).unsqueeze(0)
        mask = torch.triu(torch.full((s, s), float("-inf")), diagonal=1)
        y = self.norm(self.enc(self.tok(ids) + self.pos(pos), mask=mask))
        return y @ self.tok.weight.t()


def tied_lm():
    torch.manual_seed(0)
    ids = torch.randint(0, 16000, (1, 48))
    return TiedLm(), (ids,), ["input_ids"], ["logits"], {
        "input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}
    }, {"input_ids": ([1, 48], "int64")}, {"batch": 1, "seq": 48}


class GruEnhancer(nn.Module):
    """A speech-enhancement mask estimator: a linear input layer over 257 spectrum bins, two
    unidirectional GRU layers of 384, a sigmoid mask per bin."""

    def __init__(self, bins=257, hidden=384):
        super().__init__()
        self.inp = nn.Linear(bins, hidden)
        self.gru = nn.GRU(hidden, hidden, num_layers=2, batch_first=True)
        self.mask = nn.Linear(hidden, bins)

    def forward(self, spec):
        y, _ = self.gru(torch.relu(self.inp(spec)))
        return spec * torch.sigmoid(self.mask(y))


def gru_enhancer():
    torch.manual_seed(0)
    x = torch.randn(1, 200, 257)
    return GruEnhancer(), (x,), ["spectrum"], ["enhanced"], {
        "spectrum": {0: "batch", 1: "frames"}, "enhanced": {0: "batch", 1: "frames"}
    }, {"spectrum": ([1, 200, 257], "float32")}, {"batch": 1, "frames": 200}


class DsCnn(nn.Module):
    """A small keyword spotter: a 2-D Conv stem over 49 × 10 MFCC frames, four depthwise-separable
    2-D Conv blocks of 172 channels with BatchNorm, average pooling, a linear head."""

    def __init__(self, chans=172, blocks=4, classes=12):
        super().__init__()
        layers = [nn.Conv2d(1, chans, (10, 4), stride=(2, 2), padding=(5, 1)), nn.BatchNorm2d(chans), nn.ReLU()]
        for _ in range(blocks):
            layers += [nn.Conv2d(chans, chans, 3, padding=1, groups=chans), nn.BatchNorm2d(chans), nn.ReLU(),
                       nn.Conv2d(chans, chans, 1), nn.BatchNorm2d(chans), nn.ReLU()]
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(chans, classes)

    def forward(self, x):
        return self.head(self.body(x).mean(dim=(2, 3)))


def ds_cnn():
    torch.manual_seed(0)
    x = torch.randn(4, 1, 49, 10)
    return DsCnn(), (x,), ["mfcc"], ["logits"], {"mfcc": {0: "batch"}, "logits": {0: "batch"}}, {
        "mfcc": ([4, 1, 49, 10], "float32")
    }, {"batch": 4}


def models():
    import torchvision.models as tv
    import torchvision.models.video as tvv

    return {
        "regnet_y_800mf": (em.vision(tv.regnet_y_800mf), False),
        "mnasnet1_3": (em.vision(tv.mnasnet1_3), False),
        "resnet101": (em.vision(tv.resnet101), False),
        "densenet201": (em.vision(tv.densenet201), False),
        "efficientnet_v2_s": (em.vision(tv.efficientnet_v2_s), False),
        "r3d_18": (video(tvv.r3d_18), False),
        "tcn_audio": (tcn_audio, True),
        "tied_lm": (tied_lm, True),
        "gru_enhancer": (gru_enhancer, True),
        "ds_cnn": (ds_cnn, True),
    }


if __name__ == "__main__":
    sys.exit(heldout_export.run(models, "heldout5"))
