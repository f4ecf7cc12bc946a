#!/usr/bin/python3
"""Export the eleventh held-out set of the onnxruntime profile (models.txt, set heldout11):
architectures and shapes not used anywhere in the project before (`git grep -i NAME` empty for
each), random weights, exported as the other held-out sets are (heldout_export.py). Written and
committed in session 16 AFTER the Conv factor was raised to 1.65 and the intercept re-derived on
every run of every measured set (heldout10 included: its regnet_x_3_2gf had runs above the
prediction) and BEFORE any of these models ran in onnxruntime. Mostly models with many Conv
weights (what the change is about), with their weights in an external data file and inside
the .onnx.

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
Usage: export_heldout11.py [--out DIR] [NAME ...]   (default DIR .fixtures-local/heldout11)
"""
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_models as em  # noqa: E402
import heldout_export  # noqa: E402


class ConvDenoiser(nn.Module):
    """An image denoiser for 128² inputs: a 3 x 3 Conv to 64 channels, eight residual blocks of
    two 3 x 3 Convs (64 -> 64) with ReLU, a 3 x 3 Conv back to 3 channels added to the input."""

    def __init__(self, c=64, blocks=8):
        super().__init__()
        self.head = nn.Conv2d(3, c, 3, padding=1)
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.ReLU(), nn.Conv2d(c, c, 3, padding=1))
            for _ in range(blocks))
        self.tail = nn.Conv2d(c, 3, 3, padding=1)

    def forward(self, x):
        y = self.head(x)
        for b in self.blocks:
            y = y + b(y)
        return x + self.tail(y)


def conv_denoiser():
    torch.manual_seed(0)
    x = torch.randn(1, 3, 128, 128)
    return ConvDenoiser(), (x,), ["noisy"], ["clean"], {"noisy": {0: "batch"}, "clean": {0: "batch"}}, {
        "noisy": ([1, 3, 128, 128], "float32")
    }, {"batch": 1}


class DilatedTcn(nn.Module):
    """A forecaster over 16 series: ten dilated causal Conv1d blocks (kernel 3, dilation 1 ... 512,
    128 channels, weight-normed away: plain Conv1d) with residuals, a 1 x 1 Conv1d to 16 outputs."""

    def __init__(self, c=128, n=10):
        super().__init__()
        self.inp = nn.Conv1d(16, c, 1)
        self.convs = nn.ModuleList(nn.Conv1d(c, c, 3, padding=2 ** i, dilation=2 ** i) for i in range(n))
        self.out = nn.Conv1d(c, 16, 1)

    def forward(self, x):
        y = self.inp(x)
        for conv in self.convs:
            y = y + torch.relu(conv(y))
        return self.out(y)


def dilated_tcn():
    torch.manual_seed(0)
    x = torch.randn(4, 16, 256)
    return DilatedTcn(), (x,), ["series"], ["forecast"], {"series": {0: "batch", 2: "steps"},
                                                          "forecast": {0: "batch", 2: "steps"}}, {
        "series": ([4, 16, 256], "float32")
    }, {"batch": 4, "steps": 256}


class GatedConvLm(nn.Module):
    """A gated convolutional language model: an embedding of 6,000 x 384, four gated Conv1d
    blocks (384 -> 2 x 384, kernel 4, left-padded), logits over the 6,000 words."""

    def __init__(self, vocab=6000, d=384, blocks=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.convs = nn.ModuleList(nn.Conv1d(d, 2 * d, 4, padding=3) for _ in range(blocks))
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        y = self.emb(ids).transpose(1, 2)
        n = y.shape[2]
        for conv in self.convs:
            a, b = conv(y)[:, :, :n].chunk(2, dim=1)
            y = y + a * torch.sigmoid(b)
        return self.head(y.transpose(1, 2))


def gated_conv_lm():
    torch.manual_seed(0)
    ids = torch.randint(0, 6000, (2, 48))
    return GatedConvLm(), (ids,), ["tokens"], ["logits"], {"tokens": {0: "batch", 1: "length"},
                                                           "logits": {0: "batch", 1: "length"}}, {
        "tokens": ([2, 48], "int64")
    }, {"batch": 2, "length": 48}


def models():
    import torchvision.models as tv
    import torchvision.models.video as tvv

    return {
        "regnet_y_8gf": (em.vision(tv.regnet_y_8gf), False),
        "resnext101_32x8d": (em.vision(tv.resnext101_32x8d), False),
        "efficientnet_b5": (em.vision(tv.efficientnet_b5, 256), False),
        "r2plus1d_18": (em.video(tvv.r2plus1d_18, 8), False),
        "conv_denoiser": (conv_denoiser, True),
        "dilated_tcn": (dilated_tcn, True),
        "gated_conv_lm": (gated_conv_lm, True),
    }


if __name__ == "__main__":
    sys.exit(heldout_export.run(models, "heldout11"))
