#!/usr/bin/python3
"""Export the eighth held-out set of the onnxruntime profile (models.txt, set heldout8):
architectures and shapes not used anywhere in the project before (`git grep -i NAME` empty for
each), random weights, exported as the other held-out sets are (heldout_export.py). Written and
committed AFTER session 15's second change (one packed copy of a weight several kernels pack,
found on a trace of heldout7's vit_tiny_embedded, so heldout7 is seen for it) and BEFORE any of
these models ran in onnxruntime. Mostly weights inside the .onnx, several with weights shared
between layers (nn.TransformerEncoder clones one layer; the exporter keeps one copy of equal
initializers).

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
Usage: export_heldout8.py [--out DIR] [NAME ...]   (default DIR .fixtures-local/heldout8)
"""
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_models as em  # noqa: E402
import heldout_export  # noqa: E402


class DistilEncoder(nn.Module):
    """A 6-layer encoder (d 384, 6 heads, ff 1536) over a 16,000-word vocabulary, first-token
    pooling, a 2-way head."""

    def __init__(self, vocab=16000, d=384, layers=6, heads=6, ff=1536):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d, 2)

    def forward(self, ids):
        return self.head(self.enc(self.emb(ids))[:, 0])


def distil_encoder():
    torch.manual_seed(0)
    ids = torch.randint(0, 16000, (1, 96))
    return DistilEncoder(), (ids,), ["input_ids"], ["logits"], {"input_ids": {0: "batch", 1: "seq"},
                                                                "logits": {0: "batch"}}, {
        "input_ids": ([1, 96], "int64")
    }, {"batch": 1, "seq": 96}


class AlbertLike(nn.Module):
    """ALBERT's shape: a factorized embedding (8,000 x 128, projected to 512), one layer (8 heads,
    ff 2048) applied 6 times, a 4-way head."""

    def __init__(self, vocab=8000, e=128, d=512, passes=6):
        super().__init__()
        self.emb, self.proj = nn.Embedding(vocab, e), nn.Linear(e, d)
        self.layer = nn.TransformerEncoderLayer(d, 8, 2048, dropout=0.0, batch_first=True)
        self.passes = passes
        self.head = nn.Linear(d, 4)

    def forward(self, ids):
        y = self.proj(self.emb(ids))
        for _ in range(self.passes):
            y = self.layer(y)
        return self.head(y.mean(dim=1))


def albert_like():
    torch.manual_seed(0)
    ids = torch.randint(0, 8000, (2, 40))
    return AlbertLike(), (ids,), ["input_ids"], ["logits"], {"input_ids": {0: "batch", 1: "seq"},
                                                             "logits": {0: "batch"}}, {
        "input_ids": ([2, 40], "int64")
    }, {"batch": 2, "seq": 40}


class SpeechLstm(nn.Module):
    """An acoustic model: a 3-layer LSTM of 320 over 80 filterbank features, 29 characters."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(80, 320, num_layers=3, batch_first=True)
        self.head = nn.Linear(320, 29)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y)


def speech_lstm():
    torch.manual_seed(0)
    x = torch.randn(1, 120, 80)
    return SpeechLstm(), (x,), ["fbank"], ["logits"], {"fbank": {0: "batch", 1: "frames"},
                                                       "logits": {0: "batch", 1: "frames"}}, {
        "fbank": ([1, 120, 80], "float32")
    }, {"batch": 1, "frames": 120}


class Affine(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.a, self.b = nn.Parameter(torch.ones(d)), nn.Parameter(torch.zeros(d))

    def forward(self, x):
        return x * self.a + self.b


class ResMlpBlock(nn.Module):
    def __init__(self, tokens, d, ff):
        super().__init__()
        self.n1, self.n2 = Affine(d), Affine(d)
        self.tok = nn.Linear(tokens, tokens)
        self.mlp = nn.Sequential(nn.Linear(d, ff), nn.GELU(), nn.Linear(ff, d))

    def forward(self, x):
        x = x + self.tok(self.n1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.mlp(self.n2(x))


class ResMlp(nn.Module):
    """ResMLP: 16 x 16 patches of a 128² image, d 256, 8 blocks (ff 1024), 10 classes."""

    def __init__(self, size=128, patch=16, d=256, blocks=8, ff=1024):
        super().__init__()
        self.stem = nn.Conv2d(3, d, patch, stride=patch)
        self.blocks = nn.Sequential(*[ResMlpBlock((size // patch) ** 2, d, ff) for _ in range(blocks)])
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        return self.head(self.blocks(self.stem(x).flatten(2).transpose(1, 2)).mean(dim=1))


def resmlp():
    torch.manual_seed(0)
    x = torch.randn(1, 3, 128, 128)
    return ResMlp(), (x,), ["image"], ["logits"], {"image": {0: "batch"}, "logits": {0: "batch"}}, {
        "image": ([1, 3, 128, 128], "float32")
    }, {"batch": 1}


class TransformerDecoder(nn.Module):
    """A 3-layer decoder (d 256, 4 heads, ff 1024) attending to a 50-step memory, a 5,000-word
    output layer."""

    def __init__(self, vocab=5000, d=256):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        layer = nn.TransformerDecoderLayer(d, 4, 1024, dropout=0.0, batch_first=True)
        self.dec = nn.TransformerDecoder(layer, 3)
        self.out = nn.Linear(d, vocab)

    def forward(self, ids, memory):
        return self.out(self.dec(self.emb(ids), memory))


def transformer_decoder():
    torch.manual_seed(0)
    ids, mem = torch.randint(0, 5000, (1, 32)), torch.randn(1, 50, 256)
    return TransformerDecoder(), (ids, mem), ["input_ids", "memory"], ["logits"], {
        "input_ids": {0: "batch", 1: "seq"}, "memory": {0: "batch", 1: "steps"}, "logits": {0: "batch", 1: "seq"}
    }, {"input_ids": ([1, 32], "int64"), "memory": ([1, 50, 256], "float32")}, {"batch": 1, "seq": 32, "steps": 50}


class MlpAutoencoder(nn.Module):
    """A dense autoencoder of 784 inputs: 1024, 512, 64, 512, 1024, 784."""

    def __init__(self):
        super().__init__()
        dims = [784, 1024, 512, 64, 512, 1024, 784]
        layers = []
        for a, b in zip(dims, dims[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        self.net = nn.Sequential(*layers[:-1])

    def forward(self, x):
        return self.net(x)


def mlp_autoencoder():
    torch.manual_seed(0)
    x = torch.randn(16, 784)
    return MlpAutoencoder(), (x,), ["pixels"], ["reconstruction"], {"pixels": {0: "batch"},
                                                                    "reconstruction": {0: "batch"}}, {
        "pixels": ([16, 784], "float32")
    }, {"batch": 16}


class SeqClassifier(nn.Module):
    """A bag-of-embeddings classifier: 30,000 x 300 embedding (36 MB, above glibc's 32 MiB mmap
    ceiling), mean over the tokens, an MLP of 512, 10 classes."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(30000, 300)
        self.mlp = nn.Sequential(nn.Linear(300, 512), nn.ReLU(), nn.Linear(512, 10))

    def forward(self, ids):
        return self.mlp(self.emb(ids).mean(dim=1))


def seq_classifier():
    torch.manual_seed(0)
    ids = torch.randint(0, 30000, (4, 128))
    return SeqClassifier(), (ids,), ["input_ids"], ["logits"], {"input_ids": {0: "batch", 1: "seq"},
                                                                "logits": {0: "batch"}}, {
        "input_ids": ([4, 128], "int64")
    }, {"batch": 4, "seq": 128}


def models():
    import torchvision.models as tv

    return {
        "efficientnet_b4": (em.vision(tv.efficientnet_b4, 320), False),
        "swin_s": (em.vision(tv.swin_s), False),
        "distil_encoder": (distil_encoder, True),
        "albert_like": (albert_like, True),
        "speech_lstm": (speech_lstm, True),
        "resmlp": (resmlp, True),
        "transformer_decoder": (transformer_decoder, True),
        "mlp_autoencoder": (mlp_autoencoder, True),
        "seq_classifier": (seq_classifier, True),
    }


if __name__ == "__main__":
    sys.exit(heldout_export.run(models, "heldout8"))
