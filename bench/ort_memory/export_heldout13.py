#!/usr/bin/python3
"""Export the thirteenth held-out set of the onnxruntime profile (models.txt, set heldout13):
architectures and shapes not used anywhere in the project before (`git grep -i NAME` empty for
each), random weights, exported as the other held-out sets are (heldout_export.py). Written and
committed in session 17 AFTER the profile's intercept was split by whether a model has a Conv
that onnxruntime converts to NCHWc (6,357,616 bytes with one, 3,141,322 without: chosen on every
run of every measured set and the synthetic models) and BEFORE any of these models ran in
onnxruntime. Models without an NCHWc Conv (the class whose prediction the split lowered): a
video transformer (3-D convolutions), and four small hand-written ones with their weights inside
the .onnx (a transformer encoder, a GRU denoiser, a recommender of embedding tables and an MLP,
a keyword spotter of 1-D convolutions and an LSTM).

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
Usage: export_heldout13.py [--out DIR] [NAME ...]   (default DIR .fixtures-local/heldout13)
"""
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_models as em  # noqa: E402
import heldout_export  # noqa: E402


class Encoder6(nn.Module):
    """A text encoder: an embedding of 8,000 x 256 and 256 positions, six pre-norm transformer
    layers (8 heads, feed-forward 1,024), a pooled 256 -> 4 classifier."""

    def __init__(self, vocab=8000, d=256, layers=6, seq=128):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(1, seq, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, 8, 4 * d, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.cls = nn.Linear(d, 4)

    def forward(self, ids):
        return self.cls(self.enc(self.emb(ids) + self.pos).mean(dim=1))


def encoder6_d256():
    torch.manual_seed(0)
    ids = torch.randint(0, 8000, (2, 128))
    return Encoder6().eval(), (ids,), ["ids"], ["logits"], {"ids": {0: "batch"}, "logits": {0: "batch"}}, {
        "ids": ([2, 128], "int64")
    }, {"batch": 2}


class GruDenoiser(nn.Module):
    """A speech denoiser on 161 spectral bins x 100 frames: two GRU layers of 256, a mask of 161
    bins applied to the input."""

    def __init__(self, bins=161, h=256):
        super().__init__()
        self.gru = nn.GRU(bins, h, num_layers=2, batch_first=True)
        self.mask = nn.Linear(h, bins)

    def forward(self, spec):
        y, _ = self.gru(spec)
        return spec * torch.sigmoid(self.mask(y))


def gru_denoiser256():
    torch.manual_seed(0)
    x = torch.randn(1, 100, 161)
    return GruDenoiser(), (x,), ["spectrum"], ["clean"], {"spectrum": {0: "batch"}, "clean": {0: "batch"}}, {
        "spectrum": ([1, 100, 161], "float32")
    }, {"batch": 1}


class DlrmSmall(nn.Module):
    """A recommender: 13 dense features through an MLP 13 -> 128 -> 64, eight embedding tables of
    20,000 x 64 looked up once each, their pairwise dot products with the dense vector, an MLP
    on top (64 + 36 -> 256 -> 1)."""

    def __init__(self, tables=8, rows=20000, d=64):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(13, 128), nn.ReLU(), nn.Linear(128, d), nn.ReLU())
        self.tables = nn.ModuleList(nn.Embedding(rows, d) for _ in range(tables))
        n = tables + 1
        self.top = nn.Sequential(nn.Linear(d + n * (n - 1) // 2, 256), nn.ReLU(), nn.Linear(256, 1))
        self.iu = torch.triu_indices(n, n, 1)

    def forward(self, dense, sparse):
        x = self.bottom(dense)
        vs = torch.stack([x] + [t(sparse[:, i]) for i, t in enumerate(self.tables)], dim=1)
        z = torch.bmm(vs, vs.transpose(1, 2))[:, self.iu[0], self.iu[1]]
        return torch.sigmoid(self.top(torch.cat([x, z], dim=1)))


def dlrm_small():
    torch.manual_seed(0)
    dense = torch.randn(32, 13)
    sparse = torch.randint(0, 20000, (32, 8))
    return DlrmSmall(), (dense, sparse), ["dense", "sparse"], ["ctr"], {
        "dense": {0: "batch"}, "sparse": {0: "batch"}, "ctr": {0: "batch"}}, {
        "dense": ([32, 13], "float32"), "sparse": ([32, 8], "int64")
    }, {"batch": 32}


class KwsConvLstm(nn.Module):
    """A keyword spotter on 40 MFCCs x 98 frames: two Conv1d (40 -> 96 -> 96, kernel 5, stride 2
    then 1), an LSTM of 128, 12 keywords from the last step."""

    def __init__(self):
        super().__init__()
        self.convs = nn.Sequential(nn.Conv1d(40, 96, 5, stride=2, padding=2), nn.ReLU(),
                                   nn.Conv1d(96, 96, 5, padding=2), nn.ReLU())
        self.lstm = nn.LSTM(96, 128, batch_first=True)
        self.out = nn.Linear(128, 12)

    def forward(self, mfcc):
        y, _ = self.lstm(self.convs(mfcc).transpose(1, 2))
        return self.out(y[:, -1])


def kws_conv_lstm():
    torch.manual_seed(0)
    x = torch.randn(1, 40, 98)
    return KwsConvLstm(), (x,), ["mfcc"], ["keyword"], {"mfcc": {0: "batch"}, "keyword": {0: "batch"}}, {
        "mfcc": ([1, 40, 98], "float32")
    }, {"batch": 1}


def models():
    import torchvision.models.video as tvv

    return {
        "mvit_v2_s": (em.video(tvv.mvit_v2_s, 16, 224), False),
        "encoder6_d256": (encoder6_d256, True),
        "gru_denoiser256": (gru_denoiser256, True),
        "dlrm_small": (dlrm_small, True),
        "kws_conv_lstm": (kws_conv_lstm, True),
    }


if __name__ == "__main__":
    sys.exit(heldout_export.run(models, "heldout13"))
