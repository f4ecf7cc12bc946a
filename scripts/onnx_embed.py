#!/usr/bin/env python3
"""Write a single-file copy of an ONNX model whose weights are in external
data: every initializer gets its bytes back as raw_data, so the output is one
large .onnx file (what many users hand to tools). Used by bench/bench_onnx_load
to measure load time against file size (resnet50 ~98 MiB, GPT-2 ~650 MB).

usage: /usr/bin/python3 scripts/onnx_embed.py IN.onnx OUT.onnx
"""
import os
import sys

import onnx


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    model = onnx.load(src, load_external_data=True)
    for t in model.graph.initializer:
        if t.data_location == onnx.TensorProto.EXTERNAL:
            sys.exit("%s: initializer %s still external" % (src, t.name))
    tmp = dst + ".tmp"
    with open(tmp, "wb") as f:
        f.write(model.SerializeToString())
    os.replace(tmp, dst)
    print("%s: %d bytes" % (dst, os.path.getsize(dst)))


if __name__ == "__main__":
    main()
