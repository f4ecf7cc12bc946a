#!/usr/bin/python3
"""Export torchvision architectures that scripts/export_models.py does not, for the accuracy
benchmark's held-out set (bench/accuracy/models.txt). Random weights (weights=None), batch 1,
opset 17, fixed input sizes (bound dims). Writes NAME.onnx (+ .onnx.data) and NAME.inputs.json
into OUTDIR (default .fixtures-local/accuracy); a model whose files exist is skipped.
Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx; the audio
models also python3-torchaudio, skipped with a message where it is missing).  usage: export_extra.py [--out DIR] [NAME...]"""
import argparse
import json
import os
import sys

import onnx
import torch
import torch.nn as nn


class Out(nn.Module):
    """Segmentation / detection models return dicts or lists: keep the first tensor(s)."""

    def __init__(self, m, key=None):
        super().__init__()
        self.m, self.key = m, key

    def forward(self, x):
        y = self.m(x)
        return y[self.key] if self.key is not None else y


class CausalEncoder(nn.Module):
    """A decoder-only stack as torch's own layers build it: nn.TransformerEncoder under a causal
    mask registered as a buffer (-inf above the diagonal), so the export holds the mask as a
    [tokens, tokens] initializer."""

    def __init__(self, tokens=200, width=256, heads=8, layers=4):
        super().__init__()
        layer = nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(tokens))

    def forward(self, x):
        return self.enc(x, mask=self.mask)


class PReluFaceNet(nn.Module):
    """A MobileFaceNet-like embedding network written for the benchmark: 3x3 convolutions,
    depthwise separable blocks with inverted residuals, a PReLU (one slope per channel) after
    every convolution but the projections, a 7x7 depthwise head and a 128-wide embedding."""

    def __init__(self):
        super().__init__()

        def cbp(cin, cout, k=1, s=1, g=1, act=True):
            layers = [nn.Conv2d(cin, cout, k, s, k // 2, groups=g, bias=False), nn.BatchNorm2d(cout)]
            return layers + [nn.PReLU(cout)] if act else layers

        class Block(nn.Module):
            def __init__(self, c, e):
                super().__init__()
                self.f = nn.Sequential(*cbp(c, c * e), *cbp(c * e, c * e, 3, 1, c * e),
                                       *cbp(c * e, c, act=False))

            def forward(self, x):
                return x + self.f(x)

        layers = cbp(3, 64, 3, 2) + cbp(64, 64, 3, 1, 64)
        for cin, cout, n in ((64, 64, 4), (64, 128, 6), (128, 128, 2)):
            layers += cbp(cin, cin * 2) + cbp(cin * 2, cin * 2, 3, 2, cin * 2) + cbp(cin * 2, cout, act=False)
            layers += [Block(cout, 2) for _ in range(n)]
        layers += cbp(128, 512) + cbp(512, 512, 7, 1, 512, act=False)
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(512 * 7 * 7, 128)

    def forward(self, x):
        return self.head(torch.flatten(self.body(x), 1))


def registry():
    import torchvision.models as tv
    import torchvision.models.segmentation as seg

    def v(ctor, size=224):
        return lambda: (ctor(weights=None), size)

    def s(ctor, size):
        return lambda: (Out(ctor(weights=None, weights_backbone=None, aux_loss=False), "out"), size)

    return {
        "resnet18": v(tv.resnet18),
        "squeezenet1_1": v(tv.squeezenet1_1),
        "mobilenet_v3_large": v(tv.mobilenet_v3_large),
        "regnet_y_400mf": v(tv.regnet_y_400mf),
        "shufflenet_v2_x1_0": v(tv.shufflenet_v2_x1_0),
        "mnasnet1_0": v(tv.mnasnet1_0),
        "googlenet": v(lambda weights: tv.googlenet(weights=weights, aux_logits=False, init_weights=False)),
        "resnext50_32x4d": v(tv.resnext50_32x4d),
        "deeplabv3_mobilenet": s(seg.deeplabv3_mobilenet_v3_large, 320),
        "lraspp_mobilenet": lambda: (Out(seg.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None), "out"), 320),
        "fcn_resnet50": s(seg.fcn_resnet50, 224),
        # session 21: a Swin variant, held out for the denormal attention mask (docs/cost.md)
        "swin_s": v(tv.swin_s),
        # session 22: a causal mask registered as a buffer, held out for the masked Softmax
        # (docs/cost.md, "Masked Softmax"); its input is [1, 200, 256] token features
        "causal_encoder": lambda: (CausalEncoder(), (1, 200, 256)),
        # session 23: torchaudio's wav2vec 2.0 (base: a convolutional feature encoder, then 12
        # post-norm transformer layers whose residual Add + LayerNorm onnxruntime fuses into
        # SkipLayerNormalization), held out for that kernel's rate (docs/cost.md,
        # "SkipLayerNormalization"); its input is one second of 16 kHz audio
        "wav2vec2_base": lambda: (Out(wav2vec2(), 0), (1, 16000)),
        # session 25: architectures never benchmarked before (docs/cost.md, "Session 25: the
        # accuracy benchmark"). wav2letter's 1-D convolutions were looked at while the expand pass
        # was rebuilt: fitting set; the others are held out
        "wav2letter": lambda: (audio().Wav2Letter(num_classes=40, input_type="waveform"), (1, 1, 16000)),
        "convtasnet": lambda: (audio().conv_tasnet_base(num_sources=2), (1, 1, 16000)),
        "maxvit_t": v(tv.maxvit_t),
        "mobilenet_v3_small": v(tv.mobilenet_v3_small),
        "regnet_x_400mf": v(tv.regnet_x_400mf),
        "vgg11_bn": v(tv.vgg11_bn),
        # session 26: exported after the Transpose walk, Einsum and BiasGelu rules were built
        # (docs/cost.md, "Transposes", "Einsum", "BiasGelu"), held out for them: a ViT of
        # 32-pixel patches and torchaudio's HuBERT (base: wav2vec 2.0's encoder, a
        # group-normalized feature extractor). torchvision's swin_v2_t does not export
        # (aten::zero at opset 17), and this torchaudio has no WavLM
        "vit_b_32": v(tv.vit_b_32),
        "hubert_base": lambda: (Out(audio().hubert_base(), 0), (1, 16000)),
        # session 27: exported after the PRelu rate, the 1-D residual Add and the cache-level
        # stream rule were built, held out for them: AlexNet (two large fully connected layers
        # at batch 1), an R(2+1)D video network (3-D convolutions, 8 frames of 112x112), a
        # MobileFaceNet-like CNN with a PReLU after every convolution, and torchaudio's
        # DeepSpeech (fully connected layers and a bidirectional RNN over 200 frames)
        "alexnet": v(tv.alexnet),
        "r2plus1d_18": lambda: (video().r2plus1d_18(weights=None), (1, 3, 8, 112, 112)),
        "prelu_facenet": lambda: (PReluFaceNet(), 112),
        "deepspeech": lambda: (audio().DeepSpeech(n_feature=80, n_hidden=1024, n_class=40),
                               (1, 1, 200, 80)),
    }


def video():
    import torchvision.models.video as vid

    return vid


def audio():
    import torchaudio

    return torchaudio.models


def wav2vec2():
    return audio().wav2vec2_base()


def export(name, make, outdir):
    base = os.path.join(outdir, name)
    if os.path.exists(base + ".onnx") and os.path.exists(base + ".inputs.json"):
        return False
    torch.manual_seed(0)
    model, size = make()
    model.eval()
    shape = list(size) if isinstance(size, tuple) else [1, 3, size, size]
    x = torch.randn(*shape)
    tmp = base + ".tmp.onnx"
    torch.onnx.export(model, (x,), tmp, input_names=["input"], output_names=["out"],
                      opset_version=17, do_constant_folding=True)
    m = onnx.load(tmp)
    os.remove(tmp)
    onnx.save_model(m, base + ".onnx", save_as_external_data=True, all_tensors_to_one_file=True,
                    location=name + ".onnx.data", size_threshold=1024)
    with open(base + ".inputs.json", "w") as f:
        json.dump({"model": name, "bind": {},
                   "inputs": {"input": {"shape": shape, "dtype": "float32"}}}, f)
    return True


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "..", ".fixtures-local", "accuracy"))
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    torch.set_num_threads(1)
    reg = registry()
    failed = []
    for n in a.names or list(reg):
        try:
            if export(n, reg[n], a.out):
                print("exported", n, flush=True)
        except Exception as e:  # report and go on: one architecture must not stop the rest
            print("export_extra: %s: %s" % (n, e), file=sys.stderr)
            failed.append(n)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
