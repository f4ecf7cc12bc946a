#!/usr/bin/python3
"""Export the tenth held-out set of the onnxruntime profile (models.txt, set heldout10):
architectures and shapes not used anywhere in the project before (`git grep -i NAME` empty for
each), random weights, exported as the other held-out sets are (heldout_export.py). Written and
committed in session 16 BEFORE any of these models ran in onnxruntime and before any rule or
coefficient was changed for them: the error of session 15's rules on models they have never seen.
Both kinds: vision models with their weights in an external data file and models with their
weights inside the .onnx.

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
Usage: export_heldout10.py [--out DIR] [NAME ...]   (default DIR .fixtures-local/heldout10)
"""
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_models as em  # noqa: E402
import heldout_export  # noqa: E402


class ConvAutoencoder(nn.Module):
    """An image autoencoder for 96² inputs: three strided 3 x 3 Conv + ReLU (3 -> 48 -> 96 -> 192),
    a 1 x 1 bottleneck to 64, three ConvTranspose2d back to 3 channels, a Sigmoid."""

    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 48, 3, 2, 1), nn.ReLU(), nn.Conv2d(48, 96, 3, 2, 1), nn.ReLU(),
                                 nn.Conv2d(96, 192, 3, 2, 1), nn.ReLU(), nn.Conv2d(192, 64, 1))
        self.dec = nn.Sequential(nn.ConvTranspose2d(64, 192, 4, 2, 1), nn.ReLU(),
                                 nn.ConvTranspose2d(192, 96, 4, 2, 1), nn.ReLU(),
                                 nn.ConvTranspose2d(96, 3, 4, 2, 1), nn.Sigmoid())

    def forward(self, x):
        return self.dec(self.enc(x))


def conv_autoencoder():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 96, 96)
    return ConvAutoencoder(), (x,), ["image"], ["reconstruction"], {
        "image": {0: "batch"}, "reconstruction": {0: "batch"}}, {
        "image": ([2, 3, 96, 96], "float32")
    }, {"batch": 2}


class AudioTransformer(nn.Module):
    """A keyword model over 80 mel bins: two Conv1d (80 -> 256, k 5, stride 2), three encoder
    layers (d 256, 4 heads, ff 1024), mean over time, 35 classes."""

    def __init__(self):
        super().__init__()
        self.front = nn.Sequential(nn.Conv1d(80, 256, 5, 2, 2), nn.GELU(), nn.Conv1d(256, 256, 5, 2, 2), nn.GELU())
        layer = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 3, enable_nested_tensor=False)
        self.head = nn.Linear(256, 35)

    def forward(self, mel):
        return self.head(self.enc(self.front(mel).transpose(1, 2)).mean(dim=1))


def audio_transformer():
    torch.manual_seed(0)
    x = torch.randn(1, 80, 400)
    return AudioTransformer(), (x,), ["mel"], ["logits"], {"mel": {0: "batch", 2: "frames"},
                                                           "logits": {0: "batch"}}, {
        "mel": ([1, 80, 400], "float32")
    }, {"batch": 1, "frames": 400}


class BigramMlp(nn.Module):
    """A next-word model: an embedding of 8,000 x 256 for the two previous words, concatenated, two
    GELU layers of 1,536, logits over the 8,000 words (an 8,000 x 1,536 output layer)."""

    def __init__(self, vocab=8000, d=256, h=1536):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.net = nn.Sequential(nn.Linear(2 * d, h), nn.GELU(), nn.Linear(h, h), nn.GELU(), nn.Linear(h, vocab))

    def forward(self, ids):
        e = self.emb(ids)
        return self.net(e.reshape(e.shape[0], -1))


def bigram_mlp():
    torch.manual_seed(0)
    ids = torch.randint(0, 8000, (8, 2))
    return BigramMlp(), (ids,), ["context"], ["logits"], {"context": {0: "batch"}, "logits": {0: "batch"}}, {
        "context": ([8, 2], "int64")
    }, {"batch": 8}


def models():
    import torchvision.models as tv
    import torchvision.models.video as tvv

    return {
        "regnet_x_800mf": (em.vision(tv.regnet_x_800mf), False),
        "regnet_x_3_2gf": (em.vision(tv.regnet_x_3_2gf), False),
        "vgg13_bn": (em.vision(tv.vgg13_bn), False),
        "mc3_18": (em.video(tvv.mc3_18, 16), False),
        "conv_autoencoder": (conv_autoencoder, True),
        "audio_transformer": (audio_transformer, True),
        "bigram_mlp": (bigram_mlp, True),
    }


if __name__ == "__main__":
    sys.exit(heldout_export.run(models, "heldout10"))
