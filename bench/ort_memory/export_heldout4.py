#!/usr/bin/python3
"""Export the fourth held-out set of the onnxruntime profile (models.txt, set heldout4):
architectures and shapes not used anywhere in the project before session 12 (not in models.txt's
other sets, not in the time benchmark), random weights, exported as the other held-out sets are
(heldout_export.py). Fixed and committed BEFORE any rule of session 12 changed and before any of
these models ran in onnxruntime.

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
Usage: export_heldout4.py [--out DIR] [NAME ...]   (default DIR .fixtures-local/heldout4)
"""
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_models as em  # noqa: E402
import heldout_export  # noqa: E402


class Mlp(nn.Module):
    """A fully connected classifier of uneven widths (Gemm weights 4-36 MiB)."""

    def __init__(self, widths=(1024, 3072, 3072, 2048, 512, 10)):
        super().__init__()
        layers = []
        for i in range(len(widths) - 1):
            layers.append(nn.Linear(widths[i], widths[i + 1]))
            if i + 2 < len(widths):
                layers.append(nn.ReLU())
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def mlp_wide():
    torch.manual_seed(0)
    x = torch.randn(8, 1024)
    return Mlp(), (x,), ["input"], ["logits"], {"input": {0: "batch"}, "logits": {0: "batch"}}, {
        "input": ([8, 1024], "float32")
    }, {"batch": 8}


class TextEncoder(nn.Module):
    """A text classifier: token + position embeddings, nn.TransformerEncoder (4 layers, d 384,
    6 heads), mean pooling and a linear head."""

    def __init__(self, vocab=12000, d=384, layers=4, heads=6, ff=1536, ctx=256, classes=5):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d, classes)

    def forward(self, ids):
        pos = torch.arange(ids.size(1), dtype=torch.long).unsqueeze(0)
        return self.head(self.enc(self.tok(ids) + self.pos(pos)).mean(dim=1))


def text_encoder():
    torch.manual_seed(0)
    ids = torch.randint(0, 12000, (2, 64))
    return TextEncoder(), (ids,), ["input_ids"], ["logits"], {
        "input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch"}
    }, {"input_ids": ([2, 64], "int64")}, {"batch": 2, "seq": 64}


class LstmLm(nn.Module):
    """A word-level LSTM language model: embedding, 2 LSTM layers of 512, output projection."""

    def __init__(self, vocab=10000, d=256, hidden=512):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, hidden, num_layers=2, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, ids):
        y, _ = self.lstm(self.emb(ids))
        return self.out(y)


def lstm_lm():
    torch.manual_seed(0)
    ids = torch.randint(0, 10000, (2, 35))
    return LstmLm(), (ids,), ["input_ids"], ["logits"], {
        "input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}
    }, {"input_ids": ([2, 35], "int64")}, {"batch": 2, "seq": 35}


class AudioCnn(nn.Module):
    """A 1-D convolutional audio classifier over log-mel frames (Conv1d + BatchNorm + ReLU
    blocks, global average pooling, a linear head)."""

    def __init__(self, mels=64, classes=35):
        super().__init__()
        chans = [mels, 128, 256, 256, 512, 512]
        layers = []
        for i in range(len(chans) - 1):
            layers += [nn.Conv1d(chans[i], chans[i + 1], 5, stride=1 if i == 0 else 2, padding=2),
                       nn.BatchNorm1d(chans[i + 1]), nn.ReLU()]
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(chans[-1], classes)

    def forward(self, x):
        return self.head(self.body(x).mean(dim=2))


def audio_cnn():
    torch.manual_seed(0)
    x = torch.randn(2, 64, 400)
    return AudioCnn(), (x,), ["input"], ["logits"], {"input": {0: "batch", 2: "frames"},
                                                     "logits": {0: "batch"}}, {
        "input": ([2, 64, 400], "float32")
    }, {"batch": 2, "frames": 400}


def models():
    import torchvision.models as tv

    return {
        "mnasnet0_75": (em.vision(tv.mnasnet0_75), False),
        "shufflenet_v2_x1_5": (em.vision(tv.shufflenet_v2_x1_5), False),
        "densenet169": (em.vision(tv.densenet169), False),
        "wide_resnet50_2": (em.vision(tv.wide_resnet50_2), False),
        "efficientnet_b2": (em.vision(tv.efficientnet_b2, 260), False),
        "vgg16_bn": (em.vision(tv.vgg16_bn), False),
        "mlp_wide": (mlp_wide, True),
        "text_encoder": (text_encoder, True),
        "lstm_lm": (lstm_lm, True),
        "audio_cnn": (audio_cnn, True),
    }


if __name__ == "__main__":
    sys.exit(heldout_export.run(models, "heldout4"))
