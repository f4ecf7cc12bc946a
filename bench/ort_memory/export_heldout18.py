#!/usr/bin/python3
"""Export the eighteenth held-out set of the onnxruntime profile (models.txt, set heldout18),
written and committed in session 32 AFTER three rules changed the float16 and Resize cases
(onnxruntime's Cast removal, NCHWc Upsample from constant sizes, a float16 Concat's float32
ReorderInput) and BEFORE any of these models ran in onnxruntime. Random weights inside the .onnx.
Models that exercise the changes: three float16 conversions as npm's float16 models ship them
(export_heldout17.to_float16: float16 weights and compute, float32 inputs and outputs) of
torchvision's LR-ASPP MobileNetV3-Large (Resizes with sizes computed from shapes), MobileNetV3-
Small (hardswish, squeeze-excitation) and DenseNet-121 (a Concat in every layer), and the
float32 FCN with a ResNet-101 backbone (never used in the project before; its output is a Resize
to the input size). All at 256 x 256, batch 1 bound.

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
Usage: export_heldout18.py [--out DIR] [NAME ...]  (default DIR .fixtures-local/heldout18)
"""
import os
import shutil
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_heldout17 as h17  # noqa: E402
import heldout_export  # noqa: E402


def image(ctor, key=None, name_out="scores"):
    """A torchvision model on one 256 x 256 image (random weights, seed 0); key: the output of a
    segmentation model's dict."""
    def make():
        torch.manual_seed(0)
        m = ctor()
        if key:
            m = h17.Out(m, key)
        x = torch.randn(1, 3, 256, 256)
        return m.eval(), (x,), ["image"], [name_out], {"image": {0: "batch"}, name_out: {0: "batch"}}, {
            "image": ([1, 3, 256, 256], "float32")
        }, {"batch": 1}

    return make


def lraspp():
    import torchvision.models.segmentation as seg

    return image(lambda: seg.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None), "out")()


def fcn_resnet101():
    import torchvision.models.segmentation as seg

    return image(lambda: seg.fcn_resnet101(weights=None, weights_backbone=None, aux_loss=False),
                 "out")()


def mobilenet_v3_small():
    import torchvision.models as tv

    return image(lambda: tv.mobilenet_v3_small(weights=None), name_out="logits")()


def densenet121():
    import torchvision.models as tv

    return image(lambda: tv.densenet121(weights=None), name_out="logits")()


def models():
    return {
        "lraspp_mobilenet_v3": (lraspp, True),
        "fcn_resnet101": (fcn_resnet101, True),
        "mobilenet_v3_small": (mobilenet_v3_small, True),
        "densenet121_256": (densenet121, True),
    }


FLOAT16 = ("lraspp_mobilenet_v3", "mobilenet_v3_small", "densenet121_256")


def float16_copies(out):
    """NAME_fp16_embedded: the float16 conversion of the embedded float32 export."""
    for n in FLOAT16:
        src = os.path.join(out, n + "_embedded.onnx")
        dst = os.path.join(out, n + "_fp16_embedded.onnx")
        if os.path.exists(src) and not os.path.exists(dst):
            h17.to_float16(src, dst)
            shutil.copy(src[:-5] + ".inputs.json", dst[:-5] + ".inputs.json")
            print("float16", dst, flush=True)


if __name__ == "__main__":
    rc = heldout_export.run(models, "heldout18")
    args = list(sys.argv[1:])
    out = args[args.index("--out") + 1] if "--out" in args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", ".fixtures-local", "heldout18")
    float16_copies(out)
    sys.exit(rc)
