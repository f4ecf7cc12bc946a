#!/usr/bin/env bash
# Regenerate the bundled example model examples/models/mobilenet_v2.onnx: torchvision's
# MobileNetV2 (random weights, weights=None) exported by scripts/export_models.py at
# opset 17 with a symbolic batch dim. Only the graph is kept (about 48 KiB); its
# weights are external (mobilenet_v2.onnx.data) and deliberately not shipped:
# tensorplan sizes them from the initializers' dims without reading them.
# Needs Debian's python3-torch, python3-torchvision and python3-onnx.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 scripts/export_models.py --out "$tmp" mobilenet_v2 >/dev/null
mkdir -p examples/models
cp "$tmp/mobilenet_v2.onnx" examples/models/mobilenet_v2.onnx
echo "wrote examples/models/mobilenet_v2.onnx ($(stat -c %s examples/models/mobilenet_v2.onnx) bytes)"
