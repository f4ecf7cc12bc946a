#!/usr/bin/env bash
# Ground-truth fixtures for the ONNX import tests (called by scripts/test.sh).
#
#  1. Debian packages come from scripts/deps-test.sh (python3-torch python3-torchvision
#     python3-onnx libonnx-testdata nodejs npm); this script only checks for them.
#  2. npm onnxruntime-node into .fixtures/ort (ONNXRUNTIME_NODE_INSTALL=skip: CPU only).
#  3. .fixtures/models/NAME.{onnx,onnx.data,all.onnx,vi.onnx,inputs.json} exported by
#     scripts/export_models.py, and NAME.shapes.json / NAME.shapes_alt.json (onnxruntime's
#     shape and dtype of every node output at two input sizes) by scripts/ort_shapes.js.
#
# Idempotent: each step runs only when its result is missing, so it is quick when up to
# date. TP_FIXTURES_SKIP=1 skips everything (the ONNX ground-truth tests then fail
# with a message naming the missing files).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${TP_FIXTURES_SKIP:-0}" = 1 ] && exit 0

FIX=.fixtures
MODELS="resnet50 mobilenet_v2 efficientnet_b0 densenet121 inception_v3 convnext_tiny swin_t vit_b_16 gpt2 gpt2_past bert_base unet_tiny"

for t in /usr/bin/python3 node npm; do
  command -v "$t" >/dev/null || { echo "fixtures: $t is missing (run scripts/deps-test.sh)" >&2; exit 1; }
done

mkdir -p "$FIX/ort" "$FIX/models"
if [ ! -f "$FIX/ort/node_modules/onnxruntime-node/package.json" ]; then
  echo "fixtures: npm install onnxruntime-node" >&2
  (cd "$FIX/ort" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --silent \
    onnxruntime-node >/dev/null)
fi

missing_export=()
missing_shapes=()
for m in $MODELS; do
  for f in "$m.onnx" "$m.onnx.data" "$m.all.onnx" "$m.vi.onnx" "$m.inputs.json"; do
    if [ ! -f "$FIX/models/$f" ]; then
      missing_export+=("$m")
      break
    fi
  done
  if [ ! -f "$FIX/models/$m.shapes.json" ] || [ ! -f "$FIX/models/$m.shapes_alt.json" ]; then
    missing_shapes+=("$m")
    # older caches lack the second input sizes: the exporter adds them (no re-export)
    [[ " ${missing_export[*]} " == *" $m "* ]] || missing_export+=("$m")
  fi
done
if ((${#missing_export[@]})); then
  echo "fixtures: exporting ${missing_export[*]} (torch, opset 17)" >&2
  /usr/bin/python3 scripts/export_models.py --out "$FIX/models" "${missing_export[@]}"
fi
if ((${#missing_shapes[@]})); then
  echo "fixtures: onnxruntime shapes of ${missing_shapes[*]}" >&2
  NODE_PATH="$FIX/ort/node_modules" node scripts/ort_shapes.js "$FIX/models" "${missing_shapes[@]}"
fi
exit 0
