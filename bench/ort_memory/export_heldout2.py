#!/usr/bin/python3
"""Export the second held-out set of the onnxruntime profile (models.txt, set heldout2):
architectures the project had not used before session 10, random weights, exported the way
scripts/export_models.py exports the test models (opset 17, dynamic batch/sequence axes,
weights in NAME.onnx.data; its export() is reused). Models marked embedded are also written
as NAME_embedded.onnx with the weights inside the .onnx (as npm models ship), and that copy is
the one measured.

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
Usage: export_heldout2.py [--out DIR] [NAME ...]   (default DIR .fixtures-local/heldout2)
"""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_models as em  # noqa: E402
import heldout_export  # noqa: E402


class TinyLM(nn.Module):
    """A small pre-norm transformer language model written out by hand (Gather embedding,
    MatMul attention, Erf GELU, tied output projection)."""

    def __init__(self, vocab=8000, d=256, layers=4, heads=4, ff=1024, ctx=128):
        super().__init__()
        self.h, self.d = heads, d
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        self.ln1 = nn.ModuleList([nn.LayerNorm(d) for _ in range(layers)])
        self.qkv = nn.ModuleList([nn.Linear(d, 3 * d) for _ in range(layers)])
        self.proj = nn.ModuleList([nn.Linear(d, d) for _ in range(layers)])
        self.ln2 = nn.ModuleList([nn.LayerNorm(d) for _ in range(layers)])
        self.fc1 = nn.ModuleList([nn.Linear(d, ff) for _ in range(layers)])
        self.fc2 = nn.ModuleList([nn.Linear(ff, d) for _ in range(layers)])
        self.lnf = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        b, s = ids.shape
        pos = torch.arange(s, dtype=torch.long).unsqueeze(0)
        x = self.tok(ids) + self.pos(pos)
        for i in range(len(self.qkv)):
            q, k, v = self.qkv[i](self.ln1[i](x)).split(self.d, dim=2)
            q, k, v = [t.view(b, s, self.h, self.d // self.h).transpose(1, 2) for t in (q, k, v)]
            a = F.softmax(torch.matmul(q, k.transpose(-1, -2)) * (self.d // self.h) ** -0.5, dim=-1)
            a = torch.matmul(a, v).transpose(1, 2).reshape(b, s, self.d)
            x = x + self.proj[i](a)
            x = x + self.fc2[i](F.gelu(self.fc1[i](self.ln2[i](x))))
        return self.head(self.lnf(x))


def tiny_lm():
    torch.manual_seed(0)
    ids = torch.randint(0, 8000, (2, 32))
    return TinyLM(), (ids,), ["input_ids"], ["logits"], {
        "input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}
    }, {"input_ids": ([2, 32], "int64")}, {"batch": 2, "seq": 32}


class Kws(nn.Module):
    """A keyword-spotting style recurrent model: two LSTM layers over feature frames."""

    def __init__(self, feat=40, hidden=256, classes=12):
        super().__init__()
        self.lstm = nn.LSTM(feat, hidden, num_layers=2, batch_first=True)
        self.fc = nn.Linear(hidden, classes)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y[:, -1])


def kws_lstm():
    torch.manual_seed(0)
    x = torch.randn(2, 100, 40)
    return Kws(), (x,), ["input"], ["logits"], {"input": {0: "batch", 1: "frames"}, "logits": {0: "batch"}}, {
        "input": ([2, 100, 40], "float32")
    }, {"batch": 2, "frames": 100}


def models():
    import torchvision.models as tv

    return {
        "mnasnet0_5": (em.vision(tv.mnasnet0_5), False),
        "squeezenet1_1": (em.vision(tv.squeezenet1_1), True),
        "shufflenet_v2": (em.vision(tv.shufflenet_v2_x1_0), False),
        "regnet_y_400mf": (em.vision(tv.regnet_y_400mf), False),
        "resnext50": (em.vision(tv.resnext50_32x4d), False),
        "mobilenet_v3_small": (em.vision(tv.mobilenet_v3_small), False),
        "googlenet": (em.vision(lambda weights: tv.googlenet(weights=weights, aux_logits=False,
                                                             init_weights=False)), False),
        "vgg11": (em.vision(tv.vgg11), False),
        "tiny_lm": (tiny_lm, True),
        "kws_lstm": (kws_lstm, True),
    }


if __name__ == "__main__":
    sys.exit(heldout_export.run(models, "heldout2"))
