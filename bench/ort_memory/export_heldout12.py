#!/usr/bin/python3
"""Export the twelfth held-out set of the onnxruntime profile (models.txt, set heldout12):
architectures and shapes not used anywhere in the project before (`git grep -i NAME` empty for
each), random weights, exported as the other held-out sets are (heldout_export.py). Written and
committed in session 17 BEFORE any of these models ran in onnxruntime, with the profile's rules
as session 16 left them (Conv factor 1.65, intercept 6,357,616 bytes; session 17 changed no
term of the memory profile): a fresh check of those rules, nothing is fitted on it. Two large
Conv-heavy vision models (grouped and wide), a video model with separable 3-D convolutions, and
two small hand-written audio/sequence models with their weights inside the .onnx.

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
Usage: export_heldout12.py [--out DIR] [NAME ...]   (default DIR .fixtures-local/heldout12)
"""
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_models as em  # noqa: E402
import heldout_export  # noqa: E402


class AsrEncoder144(nn.Module):
    """A speech encoder in the conformer style on 80 mel bins x 300 frames: a Conv1d front end to
    144 channels, four blocks of (feed-forward 144 -> 576 -> 144, 4-head self-attention, a
    depthwise Conv1d of kernel 15 between two pointwise ones), a linear layer to 128 tokens."""

    def __init__(self, mels=80, d=144, blocks=4, vocab=128):
        super().__init__()
        self.front = nn.Conv1d(mels, d, 3, stride=2, padding=1)
        self.ff = nn.ModuleList(nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(),
                                              nn.Linear(4 * d, d)) for _ in range(blocks))
        self.attn = nn.ModuleList(nn.MultiheadAttention(d, 4, batch_first=True) for _ in range(blocks))
        self.pw1 = nn.ModuleList(nn.Conv1d(d, d, 1) for _ in range(blocks))
        self.dw = nn.ModuleList(nn.Conv1d(d, d, 15, padding=7, groups=d) for _ in range(blocks))
        self.pw2 = nn.ModuleList(nn.Conv1d(d, d, 1) for _ in range(blocks))
        self.head = nn.Linear(d, vocab)

    def forward(self, mel):
        x = self.front(mel).transpose(1, 2)
        for ff, attn, pw1, dw, pw2 in zip(self.ff, self.attn, self.pw1, self.dw, self.pw2):
            x = x + 0.5 * ff(x)
            x = x + attn(x, x, x, need_weights=False)[0]
            y = pw2(torch.relu(dw(pw1(x.transpose(1, 2)))))
            x = x + y.transpose(1, 2)
        return self.head(x)


def asr_encoder144():
    torch.manual_seed(0)
    mel = torch.randn(1, 80, 300)
    return AsrEncoder144().eval(), (mel,), ["mel"], ["logits"], {"mel": {0: "batch"}, "logits": {0: "batch"}}, {
        "mel": ([1, 80, 300], "float32")
    }, {"batch": 1}


class FrameMixer(nn.Module):
    """An MLP-mixer that tags 64 frames of 40 features: an embedding to 192, six blocks mixing
    tokens (64 -> 256 -> 64) and channels (192 -> 768 -> 192), 50 tags per frame."""

    def __init__(self, feats=40, frames=64, d=192, blocks=6, tags=50):
        super().__init__()
        self.inp = nn.Linear(feats, d)
        self.tok = nn.ModuleList(nn.Sequential(nn.Linear(frames, 4 * frames), nn.GELU(),
                                               nn.Linear(4 * frames, frames)) for _ in range(blocks))
        self.ch = nn.ModuleList(nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.GELU(),
                                              nn.Linear(4 * d, d)) for _ in range(blocks))
        self.out = nn.Linear(d, tags)

    def forward(self, x):
        y = self.inp(x)
        for tok, ch in zip(self.tok, self.ch):
            y = y + tok(y.transpose(1, 2)).transpose(1, 2)
            y = y + ch(y)
        return self.out(y)


def frame_mixer():
    torch.manual_seed(0)
    x = torch.randn(2, 64, 40)
    return FrameMixer(), (x,), ["features"], ["tags"], {"features": {0: "batch"}, "tags": {0: "batch"}}, {
        "features": ([2, 64, 40], "float32")
    }, {"batch": 2}


def models():
    import torchvision.models as tv
    import torchvision.models.video as tvv

    return {
        "resnext101_64x4d": (em.vision(tv.resnext101_64x4d), False),
        "wide_resnet101_2": (em.vision(tv.wide_resnet101_2), False),
        "s3d": (em.video(tvv.s3d, 16, 224), False),  # its 7 x 7 stem needs more than 112
        "asr_encoder144": (asr_encoder144, True),
        "frame_mixer": (frame_mixer, True),
    }


if __name__ == "__main__":
    sys.exit(heldout_export.run(models, "heldout12"))
