"""A notebook-style tour of tensorplan's Python API (run by the tests).

Run: python3 python/examples/quickstart.py [model.onnx]
"""
import os
import sys

import tensorplan

here = os.path.dirname(os.path.abspath(__file__))
model = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    here, "..", "..", "examples", "models", "mobilenet_v2.onnx")

# %% What is in the model?
info = tensorplan.inspect(model)
print(info)

# %% Will it fit in 64 MiB at batch 8?
e = tensorplan.estimate(model, dims={"batch": 8}, budget="64MiB")
print(e)
assert e.peak_bytes == e.activation_bytes + e.weight_bytes + e.input_bytes

# %% Where does each tensor go?
p = tensorplan.plan(model, dims={"batch": 8}, algo="bestfit")
print(p)
largest = max(p.slots, key=lambda s: s.size_bytes)
print(f"largest tensor: {largest.node} at offset {largest.offset}, "
      f"{tensorplan.format_bytes(largest.size_bytes)}")

# %% The largest batch that fits 256 MiB
f = tensorplan.fit(model, "batch", "256MiB")
print(f)

# %% The arena planner on its own: (size, birth, death) buffers
a = tensorplan.alloc([(1024, 0, 2), (2048, 1, 3), (512, 3, 4)], algo="auto")
print(a, a.offsets)
