"""A notebook-style tour of tensorplan's Python API (each "# %%" is a cell; the tests run
the whole file).

Run: python3 python/examples/quickstart.py [model.onnx] [--html report.html]
"""
import argparse
import dataclasses
import os
import tempfile

import tensorplan

here = os.path.dirname(os.path.abspath(__file__))
cli = argparse.ArgumentParser(description=__doc__)
cli.add_argument("model", nargs="?",
                 default=os.path.join(here, "..", "..", "examples", "models", "mobilenet_v2.onnx"))
cli.add_argument("--html", default=os.path.join(tempfile.mkdtemp(), "report.html"))
opts = cli.parse_args()
model, html = opts.model, opts.html

# %% What is in the model?
info = tensorplan.inspect(model)
print(info)
print({v.name: v.shape for v in info.inputs})

# %% Will it fit in 64 MiB at batch 8? Sizes are ints in bytes; str() is for people.
e = tensorplan.estimate(model, dims={"batch": 8}, budget="64MiB")
print(e)
assert e.peak_bytes == e.activations_bytes + e.weights_bytes + e.inputs_bytes
print("fits:", e.fits, "headroom bytes:", e.headroom_bytes)

# %% And with onnxruntime (CPU) instead of the best plan?
ort = tensorplan.estimate(model, dims={"batch": 8}, budget="64MiB", runtime="onnxruntime")
print(ort.runtime, "- fits:", ort.fits)
print(dataclasses.asdict(ort.runtime.terms))

# %% Where does each tensor go?
p = tensorplan.plan(model, dims={"batch": 8})
print(p)
largest = max(p.slots, key=lambda s: s.size)
print(f"largest tensor: {largest.name} ({largest.op}) at offset {largest.offset}, "
      f"{tensorplan.format_bytes(largest.size)}, live steps {largest.birth}..{largest.death}")

# %% The largest batch that fits 256 MiB
f = tensorplan.fit(model, "batch", "256MiB")
print(f)

# %% How fast, and on which device? (catalog devices need no hardware)
c = tensorplan.cost(model, devices=["cpu-default", "h100-sxm", "rpi5"])
print(c)

# %% The whole report, and its HTML page (memory map with details on hover)
r = tensorplan.report(model, budget="64MiB", devices=["h100-sxm", "rpi5"], html=html)
print(r)
print("wrote", html)

# %% The arena planner on its own: (size, birth, death) buffers
a = tensorplan.alloc([(1024, 0, 2), (2048, 1, 3), (512, 3, 4)], algo="auto")
print(a, a.offsets)

# %% Errors carry the library's code, message, node and file offset
try:
    tensorplan.estimate(b"not a model")
except tensorplan.Error as err:
    print(err.code, "at offset", err.offset, "-", err.message)
