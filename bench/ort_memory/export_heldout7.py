#!/usr/bin/python3
"""Export the seventh held-out set of the onnxruntime profile (models.txt, set heldout7):
architectures and shapes not used anywhere in the project before session 15 (`git grep -i NAME`
empty for each), random weights, exported as the other held-out sets are (heldout_export.py).
Written and committed AFTER session 15's heap emulation (ort_load.c) was fixed and BEFORE any of
these models ran in onnxruntime: the emulation was designed on traces of heldout4-6 models, so
those sets are seen for it; this one is not. Most of it stores its weights inside the .onnx
(the case the emulation covers).

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
Usage: export_heldout7.py [--out DIR] [NAME ...]   (default DIR .fixtures-local/heldout7)
"""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_models as em  # noqa: E402
import heldout_export  # noqa: E402


class BertMini(nn.Module):
    """A BERT-style encoder: word (10,000), position (128) and token-type embeddings, d 256, 4
    layers of 4 heads and ff 1024, a pooled 3-way head."""

    def __init__(self, vocab=10000, d=256, layers=4, heads=4, ff=1024, classes=3):
        super().__init__()
        self.word, self.pos, self.typ = nn.Embedding(vocab, d), nn.Embedding(128, d), nn.Embedding(2, d)
        self.norm = nn.LayerNorm(d)
        layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True, activation="gelu")
        self.enc = nn.TransformerEncoder(layer, layers)
        self.pool = nn.Linear(d, d)
        self.head = nn.Linear(d, classes)

    def forward(self, ids, types):
        pos = torch.arange(ids.size(1), device=ids.device).unsqueeze(0)
        y = self.enc(self.norm(self.word(ids) + self.pos(pos) + self.typ(types)))
        return self.head(torch.tanh(self.pool(y[:, 0])))


def bert_mini():
    torch.manual_seed(0)
    ids, types = torch.randint(0, 10000, (2, 48)), torch.zeros(2, 48, dtype=torch.int64)
    return BertMini(), (ids, types), ["input_ids", "token_type_ids"], ["logits"], {
        "input_ids": {0: "batch", 1: "seq"}, "token_type_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch"}
    }, {"input_ids": ([2, 48], "int64"), "token_type_ids": ([2, 48], "int64")}, {"batch": 2, "seq": 48}


class VitTiny(nn.Module):
    """A small vision transformer: 16 x 16 patches of a 112² image, d 192, 6 layers of 3 heads and
    ff 768, a class token, 200 classes."""

    def __init__(self, size=112, patch=16, d=192, layers=6, heads=3, ff=768, classes=200):
        super().__init__()
        self.stem = nn.Conv2d(3, d, patch, stride=patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos = nn.Parameter(torch.randn(1, (size // patch) ** 2 + 1, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True, activation="gelu",
                                           norm_first=True)
        self.enc = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        y = self.stem(x).flatten(2).transpose(1, 2)
        y = torch.cat([self.cls.expand(y.size(0), -1, -1), y], dim=1) + self.pos
        return self.head(self.norm(self.enc(y))[:, 0])


def vit_tiny():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 112, 112)
    return VitTiny(), (x,), ["pixels"], ["logits"], {"pixels": {0: "batch"}, "logits": {0: "batch"}}, {
        "pixels": ([2, 3, 112, 112], "float32")
    }, {"batch": 2}


class GptMini(nn.Module):
    """A decoder-only language model without a cache: vocabulary 6,000, d 320, 4 causal layers of 5
    heads and ff 1280, an untied output layer."""

    def __init__(self, vocab=6000, d=320, layers=4, heads=5, ff=1280, ctx=256):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True, activation="gelu",
                                           norm_first=True)
        self.dec = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(d)
        self.out = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        n = ids.size(1)
        mask = torch.triu(torch.full((n, n), float("-inf")), diagonal=1)
        pos = torch.arange(n, device=ids.device).unsqueeze(0)
        return self.out(self.norm(self.dec(self.tok(ids) + self.pos(pos), mask=mask)))


def gpt_mini():
    torch.manual_seed(0)
    ids = torch.randint(0, 6000, (1, 64))
    return GptMini(), (ids,), ["input_ids"], ["logits"], {
        "input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}
    }, {"input_ids": ([1, 64], "int64")}, {"batch": 1, "seq": 64}


class GruAutoencoder(nn.Module):
    """A sequence autoencoder: a 2-layer GRU encoder (64 features -> 384) and a 2-layer GRU decoder
    fed the encoding at every step, a linear layer back to 64 features."""

    def __init__(self, feats=64, hidden=384):
        super().__init__()
        self.enc = nn.GRU(feats, hidden, num_layers=2, batch_first=True)
        self.dec = nn.GRU(hidden, hidden, num_layers=2, batch_first=True)
        self.out = nn.Linear(hidden, feats)

    def forward(self, x):
        y, _ = self.enc(x)
        code = y[:, -1:, :].expand(-1, x.size(1), -1)
        z, _ = self.dec(code)
        return self.out(z)


def gru_autoencoder():
    torch.manual_seed(0)
    x = torch.randn(1, 50, 64)
    return GruAutoencoder(), (x,), ["series"], ["reconstruction"], {
        "series": {0: "batch", 1: "steps"}, "reconstruction": {0: "batch", 1: "steps"}
    }, {"series": ([1, 50, 64], "float32")}, {"batch": 1, "steps": 50}


class DeepMlp(nn.Module):
    """A tabular classifier: 10 blocks of Linear(768, 768) + LayerNorm + ReLU over 768 features,
    50 classes."""

    def __init__(self, d=768, blocks=10, classes=50):
        super().__init__()
        self.body = nn.Sequential(*[nn.Sequential(nn.Linear(d, d), nn.LayerNorm(d), nn.ReLU()) for _ in range(blocks)])
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        return self.head(self.body(x))


def deep_mlp():
    torch.manual_seed(0)
    x = torch.randn(8, 768)
    return DeepMlp(), (x,), ["features"], ["logits"], {"features": {0: "batch"}, "logits": {0: "batch"}}, {
        "features": ([8, 768], "float32")
    }, {"batch": 8}


class BilstmTagger(nn.Module):
    """A sequence tagger: an embedding of 20,000 x 200, a 2-layer bidirectional LSTM of 2 x 256,
    40 tags per token."""

    def __init__(self, vocab=20000, d=200, hidden=256, tags=40):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.rnn = nn.LSTM(d, hidden, num_layers=2, bidirectional=True, batch_first=True)
        self.head = nn.Linear(2 * hidden, tags)

    def forward(self, ids):
        y, _ = self.rnn(self.emb(ids))
        return self.head(y)


def bilstm_tagger():
    torch.manual_seed(0)
    ids = torch.randint(0, 20000, (1, 30))
    return BilstmTagger(), (ids,), ["input_ids"], ["tags"], {
        "input_ids": {0: "batch", 1: "seq"}, "tags": {0: "batch", 1: "seq"}
    }, {"input_ids": ([1, 30], "int64")}, {"batch": 1, "seq": 30}


class GmlpBlock(nn.Module):
    def __init__(self, d, ff, seq):
        super().__init__()
        self.norm, self.gate_norm = nn.LayerNorm(d), nn.LayerNorm(ff // 2)
        self.up, self.down = nn.Linear(d, ff), nn.Linear(ff // 2, d)
        self.spatial = nn.Linear(seq, seq)

    def forward(self, x):
        u, v = F.gelu(self.up(self.norm(x))).chunk(2, dim=-1)
        v = self.spatial(self.gate_norm(v).transpose(1, 2)).transpose(1, 2)
        return x + self.down(u * v)


class Gmlp(nn.Module):
    """A gMLP text classifier (fixed length 64): vocabulary 4,000, d 256, 6 blocks of ff 1024 with
    a spatial gating unit, mean pooling, 5 classes."""

    def __init__(self, vocab=4000, d=256, ff=1024, seq=64, blocks=6, classes=5):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.Sequential(*[GmlpBlock(d, ff, seq) for _ in range(blocks)])
        self.head = nn.Linear(d, classes)

    def forward(self, ids):
        return self.head(self.blocks(self.emb(ids)).mean(dim=1))


def gmlp():
    torch.manual_seed(0)
    ids = torch.randint(0, 4000, (2, 64))
    return Gmlp(), (ids,), ["input_ids"], ["logits"], {"input_ids": {0: "batch"}, "logits": {0: "batch"}}, {
        "input_ids": ([2, 64], "int64")
    }, {"batch": 2}


class ConvLstm(nn.Module):
    """A keyword spotter: three Conv1d layers (40 -> 128 channels, k 5, stride 1, 2, 1) over 40
    filterbank features, an LSTM of 256, 12 classes from the last step."""

    def __init__(self, feats=40, ch=128, hidden=256, classes=12):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(feats, ch, 5, padding=2), nn.ReLU(),
                                  nn.Conv1d(ch, ch, 5, stride=2, padding=2), nn.ReLU(),
                                  nn.Conv1d(ch, ch, 5, padding=2), nn.ReLU())
        self.rnn = nn.LSTM(ch, hidden, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        y, _ = self.rnn(self.conv(x).transpose(1, 2))
        return self.head(y[:, -1])


def conv_lstm():
    torch.manual_seed(0)
    x = torch.randn(1, 40, 100)
    return ConvLstm(), (x,), ["fbank"], ["logits"], {"fbank": {0: "batch", 2: "frames"}, "logits": {0: "batch"}}, {
        "fbank": ([1, 40, 100], "float32")
    }, {"batch": 1, "frames": 100}


def models():
    import torchvision.models as tv

    return {
        "regnet_y_1_6gf": (em.vision(tv.regnet_y_1_6gf), False),
        "convnext_small": (em.vision(tv.convnext_small), False),
        "bert_mini": (bert_mini, True),
        "vit_tiny": (vit_tiny, True),
        "gpt_mini": (gpt_mini, True),
        "gru_autoencoder": (gru_autoencoder, True),
        "deep_mlp": (deep_mlp, True),
        "bilstm_tagger": (bilstm_tagger, True),
        "gmlp": (gmlp, True),
        "conv_lstm": (conv_lstm, True),
    }


if __name__ == "__main__":
    sys.exit(heldout_export.run(models, "heldout7"))
