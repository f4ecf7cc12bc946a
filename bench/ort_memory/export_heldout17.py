#!/usr/bin/python3
"""Export the seventeenth held-out set of the onnxruntime profile (models.txt, set heldout17):
architectures not used anywhere in the project before (`git grep -i NAME` empty for each),
random weights, their weights inside the .onnx, exported as the other held-out sets are
(heldout_export.py). Written and committed in session 31 AFTER run 2 of the arena emulation
was changed (the memory-pattern block held while scratch and graph outputs come from the
arena beside it; a ConvTranspose's packed filter in the arena from the session's creation) and
a float16 Concat was traced between its Casts, and BEFORE any of these models ran in
onnxruntime. Models that exercise the changes: a U-Net whose decoder upsamples with
ConvTranspose2d and concatenates skips, the same U-Net converted to float16 weights and compute
(as npm's float16 models are: float32 inputs and outputs, Casts at the edges), torchvision's S3D
video network (separable 3-D convolutions, Concat of branches), DeepLabV3 with a ResNet-50
backbone (dilated convolutions, a Resize to the input size as its output). torchaudio's Hybrid
Demucs was chosen too but does not export (aten::stft at opset 17).

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-torchaudio,
python3-onnx). Usage: export_heldout17.py [--out DIR] [NAME ...]
(default DIR .fixtures-local/heldout17)
"""
import os
import shutil
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_models as em  # noqa: E402
import heldout_export  # noqa: E402


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU())


class UNet(nn.Module):
    """Four levels (32, 64, 128, 256 channels), a 512-channel bottleneck, MaxPool down,
    ConvTranspose2d (2x2, stride 2) up, each decoder level concatenating its encoder's skip,
    2 output classes."""

    def __init__(self, widths=(32, 64, 128, 256), classes=2):
        super().__init__()
        self.down = nn.ModuleList()
        c = 3
        for w in widths:
            self.down.append(block(c, w))
            c = w
        self.pool = nn.MaxPool2d(2)
        self.mid = block(c, 2 * c)
        c = 2 * c
        self.up = nn.ModuleList()
        self.dec = nn.ModuleList()
        for w in reversed(widths):
            self.up.append(nn.ConvTranspose2d(c, w, 2, stride=2))
            self.dec.append(block(2 * w, w))
            c = w
        self.head = nn.Conv2d(c, classes, 1)

    def forward(self, x):
        skips = []
        for d in self.down:
            x = d(x)
            skips.append(x)
            x = self.pool(x)
        x = self.mid(x)
        for u, d, s in zip(self.up, self.dec, reversed(skips)):
            x = d(torch.cat([u(x), s], dim=1))
        return self.head(x)


def unet_convtranspose():
    torch.manual_seed(0)
    x = torch.randn(1, 3, 256, 256)
    return UNet().eval(), (x,), ["image"], ["mask"], {"image": {0: "batch"}, "mask": {0: "batch"}}, {
        "image": ([1, 3, 256, 256], "float32")
    }, {"batch": 1}


def s3d_video():
    import torchvision.models.video as vid

    return em.video(vid.s3d, 16, 224)()


class Out(nn.Module):
    def __init__(self, m, key):
        super().__init__()
        self.m, self.key = m, key

    def forward(self, x):
        return self.m(x)[self.key]


def deeplabv3_resnet50():
    import torchvision.models.segmentation as seg

    torch.manual_seed(0)
    m = Out(seg.deeplabv3_resnet50(weights=None, weights_backbone=None, aux_loss=False), "out")
    x = torch.randn(1, 3, 256, 256)
    return m.eval(), (x,), ["image"], ["scores"], {"image": {0: "batch"}, "scores": {0: "batch"}}, {
        "image": ([1, 3, 256, 256], "float32")
    }, {"batch": 1}


def half(t):
    """A float32 TensorProto as float16."""
    return numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float16), t.name)


def edge_casts(g, values, field, to, prefix):
    """A Cast at each float32 graph input (field "input") or output ("output"): the graph's nodes
    read (or write) NAME_fp16 instead, the Cast converts between NAME and NAME_fp16."""
    casts = []
    for v in values:
        if v.type.tensor_type.elem_type != TensorProto.FLOAT:
            continue
        inner = v.name + "_fp16"
        for n in g.node:
            names = getattr(n, field)
            for i, x in enumerate(names):
                if x == v.name:
                    names[i] = inner
        src, dst = (v.name, inner) if field == "input" else (inner, v.name)
        casts.append(helper.make_node("Cast", [src], [dst], to=to, name=prefix + v.name))
    return casts


def to_float16(src, dst):
    """A float32 model as npm's float16 models ship: float16 weights and compute, float32 inputs
    and outputs with a Cast at each (the converters' keep_io_types). Initializers a kernel needs
    in float32 (Resize's roi and scales) stay float32."""
    m = onnx.load(src)
    g = m.graph
    keep = set()
    for n in g.node:
        if n.op_type == "Resize":
            keep.update(n.input[1:3])
    for t in g.initializer:
        if t.data_type == TensorProto.FLOAT and t.name not in keep:
            t.CopyFrom(half(t))
    for n in g.node:
        for a in n.attribute:
            if a.name == "to" and n.op_type == "Cast" and a.i == TensorProto.FLOAT:
                a.i = TensorProto.FLOAT16
            if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == TensorProto.FLOAT:
                a.t.CopyFrom(half(a.t))
    del g.value_info[:]
    nodes = edge_casts(g, g.input, "input", TensorProto.FLOAT16, "graph_input_cast_")
    tail = edge_casts(g, g.output, "output", TensorProto.FLOAT, "graph_output_cast_")
    body = list(g.node)
    del g.node[:]
    g.node.extend(nodes + body + tail)
    onnx.checker.check_model(m)
    onnx.save(m, dst, save_as_external_data=False)


def models():
    return {
        "unet_convtranspose": (unet_convtranspose, True),
        "s3d_video": (s3d_video, True),
        "deeplabv3_resnet50": (deeplabv3_resnet50, True),
    }


def float16_copies(out):
    """unet_convtranspose_fp16_embedded: the float16 conversion of the embedded U-Net."""
    src = os.path.join(out, "unet_convtranspose_embedded.onnx")
    dst = os.path.join(out, "unet_convtranspose_fp16_embedded.onnx")
    if os.path.exists(src) and not os.path.exists(dst):
        to_float16(src, dst)
        shutil.copy(src[:-5] + ".inputs.json", dst[:-5] + ".inputs.json")
        print("float16", dst, flush=True)


if __name__ == "__main__":
    rc = heldout_export.run(models, "heldout17")
    args = [a for a in sys.argv[1:]]
    out = args[args.index("--out") + 1] if "--out" in args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", ".fixtures-local", "heldout17")
    float16_copies(out)
    sys.exit(rc)
