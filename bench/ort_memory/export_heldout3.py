#!/usr/bin/python3
"""Export the third held-out set of the onnxruntime profile (models.txt, set heldout3):
architectures not used anywhere in the project before session 11 (not in models.txt's other
sets, not in the time benchmark), random weights, exported as export_heldout2.py exports (its
export/embedded handling reused). Fixed BEFORE any rule of session 11 changed and before any of
these models ran in onnxruntime.

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
Usage: export_heldout3.py [--out DIR] [NAME ...]   (default DIR .fixtures-local/heldout3)
"""
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_models as em  # noqa: E402
import heldout_export  # noqa: E402


class Mlp(nn.Module):
    """A plain classifier of large fully connected layers (Gemm weights 16-64 MiB each)."""

    def __init__(self, d_in=4096, hidden=4096, classes=1000):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                 nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, classes))

    def forward(self, x):
        return self.net(x)


def mlp():
    torch.manual_seed(0)
    x = torch.randn(4, 4096)
    return Mlp(), (x,), ["input"], ["logits"], {"input": {0: "batch"}, "logits": {0: "batch"}}, {
        "input": ([4, 4096], "float32")
    }, {"batch": 4}


class GruTagger(nn.Module):
    """An embedding + bidirectional GRU sequence tagger."""

    def __init__(self, vocab=5000, d=128, hidden=192, tags=20):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.gru = nn.GRU(d, hidden, num_layers=2, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, tags)

    def forward(self, ids):
        y, _ = self.gru(self.emb(ids))
        return self.out(y)


def gru_tagger():
    torch.manual_seed(0)
    ids = torch.randint(0, 5000, (2, 50))
    return GruTagger(), (ids,), ["input_ids"], ["tags"], {
        "input_ids": {0: "batch", 1: "seq"}, "tags": {0: "batch", 1: "seq"}
    }, {"input_ids": ([2, 50], "int64")}, {"batch": 2, "seq": 50}


class Seq2Seq(nn.Module):
    """A small encoder-decoder transformer (nn.Transformer, 3+3 layers, d 256) with token
    embeddings and an output projection."""

    def __init__(self, vocab=6000, d=256):
        super().__init__()
        self.src = nn.Embedding(vocab, d)
        self.tgt = nn.Embedding(vocab, d)
        self.tr = nn.Transformer(d, 4, 3, 3, 1024, dropout=0.0, batch_first=True)
        self.head = nn.Linear(d, vocab)

    def forward(self, src, tgt):
        return self.head(self.tr(self.src(src), self.tgt(tgt)))


def seq2seq():
    torch.manual_seed(0)
    src = torch.randint(0, 6000, (2, 40))
    tgt = torch.randint(0, 6000, (2, 30))
    return Seq2Seq(), (src, tgt), ["src", "tgt"], ["logits"], {
        "src": {0: "batch", 1: "src_len"}, "tgt": {0: "batch", 1: "tgt_len"},
        "logits": {0: "batch", 1: "tgt_len"}
    }, {"src": ([2, 40], "int64"), "tgt": ([2, 30], "int64")}, {"batch": 2, "src_len": 40, "tgt_len": 30}


def models():
    import torchvision.models as tv

    return {
        "alexnet": (em.vision(tv.alexnet), False),
        "vgg13": (em.vision(tv.vgg13), False),
        "resnet34": (em.vision(tv.resnet34), False),
        "efficientnet_b1": (em.vision(tv.efficientnet_b1, 240), False),
        "regnet_x_400mf": (em.vision(tv.regnet_x_400mf), False),
        "shufflenet_v2_x0_5": (em.vision(tv.shufflenet_v2_x0_5), False),
        "squeezenet1_0": (em.vision(tv.squeezenet1_0), True),
        "mlp": (mlp, True),
        "gru_tagger": (gru_tagger, True),
        "seq2seq": (seq2seq, True),
    }


if __name__ == "__main__":
    sys.exit(heldout_export.run(models, "heldout3"))
