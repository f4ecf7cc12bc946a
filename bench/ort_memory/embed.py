#!/usr/bin/python3
"""Write a copy of an ONNX model whose initializers are stored inside the .onnx file (no
external data), for the calibration of the profile's model-copy term (npm models ship that way;
the exported test models keep their weights in a .onnx.data file).
Usage: /usr/bin/python3 bench/ort_memory/embed.py IN.onnx OUT.onnx"""
import shutil
import sys

import onnx

src, dst = sys.argv[1], sys.argv[2]
m = onnx.load(src)  # reads the external data
onnx.save(m, dst, save_as_external_data=False)
shutil.copy(src[:-len('.onnx')] + '.inputs.json', dst[:-len('.onnx')] + '.inputs.json')
print('embed: %s -> %s' % (src, dst))
