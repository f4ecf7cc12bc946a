#!/usr/bin/python3
"""Export the ninth held-out set of the onnxruntime profile (models.txt, set heldout9):
architectures and shapes not used anywhere in the project before (`git grep -i NAME` empty for
each), random weights, exported as the other held-out sets are (heldout_export.py). Written and
committed AFTER session 15's three changes (the heap emulation of embedded weights, one packed
copy of a shared weight, the pre-packed weights out of the arena emulation: the last found on
heldout8's swin_s, so heldout8 is seen for it) and BEFORE any of these models ran in onnxruntime.
Both kinds: vision models with their weights in an external data file (the arena change) and
models with their weights inside the .onnx (the heap emulation).

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
Usage: export_heldout9.py [--out DIR] [NAME ...]   (default DIR .fixtures-local/heldout9)
"""
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_models as em  # noqa: E402
import heldout_export  # noqa: E402


class WideTransformer(nn.Module):
    """Two wide encoder layers (d 512, 8 heads, ff 4096: 8 MiB feed-forward weights, above the
    4 MiB glibc threshold the parse raises) over a 3,000-word vocabulary, a 6-way head."""

    def __init__(self, vocab=3000, d=512, ff=4096):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.l1 = nn.TransformerEncoderLayer(d, 8, ff, dropout=0.0, batch_first=True)
        self.l2 = nn.TransformerEncoderLayer(d, 8, ff, dropout=0.0, batch_first=True)
        self.head = nn.Linear(d, 6)

    def forward(self, ids):
        return self.head(self.l2(self.l1(self.emb(ids))).mean(dim=1))


def wide_transformer():
    torch.manual_seed(0)
    ids = torch.randint(0, 3000, (2, 32))
    return WideTransformer(), (ids,), ["input_ids"], ["logits"], {"input_ids": {0: "batch", 1: "seq"},
                                                                  "logits": {0: "batch"}}, {
        "input_ids": ([2, 32], "int64")
    }, {"batch": 2, "seq": 32}


class CharCnnLstm(nn.Module):
    """A character model: an embedding of 100 x 64, two Conv1d (64 -> 256, k 3) with max pooling,
    a 2-layer LSTM of 384, 50 classes from the last step."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 64)
        self.conv = nn.Sequential(nn.Conv1d(64, 256, 3, padding=1), nn.ReLU(), nn.MaxPool1d(2),
                                  nn.Conv1d(256, 256, 3, padding=1), nn.ReLU(), nn.MaxPool1d(2))
        self.rnn = nn.LSTM(256, 384, num_layers=2, batch_first=True)
        self.head = nn.Linear(384, 50)

    def forward(self, ids):
        y = self.conv(self.emb(ids).transpose(1, 2)).transpose(1, 2)
        z, _ = self.rnn(y)
        return self.head(z[:, -1])


def char_cnn_lstm():
    torch.manual_seed(0)
    ids = torch.randint(0, 100, (1, 200))
    return CharCnnLstm(), (ids,), ["chars"], ["logits"], {"chars": {0: "batch", 1: "length"},
                                                          "logits": {0: "batch"}}, {
        "chars": ([1, 200], "int64")
    }, {"batch": 1, "length": 200}


class DenseTabular(nn.Module):
    """A wide dense regressor: 2,048 features, layers of 4,096 and 2,048 (32 MiB weights, at
    glibc's mmap ceiling), one output."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2048, 4096), nn.ReLU(), nn.Linear(4096, 2048), nn.ReLU(),
                                 nn.Linear(2048, 1))

    def forward(self, x):
        return self.net(x)


def dense_tabular():
    torch.manual_seed(0)
    x = torch.randn(4, 2048)
    return DenseTabular(), (x,), ["features"], ["value"], {"features": {0: "batch"}, "value": {0: "batch"}}, {
        "features": ([4, 2048], "float32")
    }, {"batch": 4}


class TinyConvnet(nn.Module):
    """A small image classifier for 64² inputs: four 3 x 3 Conv + BatchNorm + ReLU blocks (32, 64,
    128, 256 channels, stride 2 from the second), global pooling, 20 classes."""

    def __init__(self):
        super().__init__()
        layers, c = [], 3
        for i, o in enumerate((32, 64, 128, 256)):
            layers += [nn.Conv2d(c, o, 3, stride=1 if i == 0 else 2, padding=1), nn.BatchNorm2d(o), nn.ReLU()]
            c = o
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(256, 20)

    def forward(self, x):
        return self.head(self.body(x).mean(dim=(2, 3)))


def tiny_convnet():
    torch.manual_seed(0)
    x = torch.randn(4, 3, 64, 64)
    return TinyConvnet(), (x,), ["image"], ["logits"], {"image": {0: "batch"}, "logits": {0: "batch"}}, {
        "image": ([4, 3, 64, 64], "float32")
    }, {"batch": 4}


def models():
    import torchvision.models as tv

    return {
        "vit_b_32": (em.vision(tv.vit_b_32), False),
        "swin_v2_t": (em.vision(tv.swin_v2_t, 256), False),
        "regnet_y_3_2gf": (em.vision(tv.regnet_y_3_2gf), False),
        "wide_transformer": (wide_transformer, True),
        "char_cnn_lstm": (char_cnn_lstm, True),
        "dense_tabular": (dense_tabular, True),
        "tiny_convnet": (tiny_convnet, True),
    }


if __name__ == "__main__":
    sys.exit(heldout_export.run(models, "heldout9"))
