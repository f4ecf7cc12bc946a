#!/usr/bin/python3
"""Recurrent models for the recurrent step rule of src/cost/graph_cost.c (docs/cost.md,
"Session 18"), random weights (seed 0), each as NAME.onnx and NAME.inputs.json in OUTDIR:

- probes (the rule at several threads was chosen on them): one GRU or LSTM of hidden
  64, 128, 256, 384, 512 over 100 steps of 64 inputs, batch 1 (gru_hH, lstm_hH);
- held out (written and committed before any of them ran in onnxruntime): rnn_gru320x2 (two GRU
  layers of 320, 80 steps of 40), rnn_lstm448 (LSTM 448, 60 steps of 128), rnn_bigru192
  (bidirectional GRU 192, 120 steps of 64), rnn_lstm160x3 (three LSTM layers of 160, 150 steps
  of 40), rnn_gru640 (GRU 640, 50 steps of 256), rnn_lstm96 (LSTM 96, 200 steps of 32);
- step probes (a step's own fixed cost, session 19): a GRU or LSTM of hidden 8, 16 or 32 over 100
  or 400 steps of 8 inputs, batch 1 (step_gru_hH_sS, step_lstm_hH_sS): R is at most 16 KiB, so
  a step's time is its fixed cost; two step counts separate it from the run's.

Run with Debian's /usr/bin/python3 (python3-torch, python3-onnx); time them with
bench/accuracy/measure_ort.js OUTDIR THREADS NAME....
Usage: export_rnn_probes.py OUTDIR [probes|heldout|steps]
"""
import json
import os
import sys

import torch
import torch.nn as nn


class Rnn(nn.Module):
    def __init__(self, kind, inputs, hidden, layers=1, bidirectional=False):
        super().__init__()
        cls = nn.GRU if kind == "gru" else nn.LSTM
        self.r = cls(inputs, hidden, num_layers=layers, batch_first=True, bidirectional=bidirectional)

    def forward(self, x):
        return self.r(x)[0]


PROBES = {"%s_h%d" % (k, h): (k, 64, h, 1, False, 100) for k in ("gru", "lstm") for h in (64, 128, 256, 384, 512)}
HELDOUT = {
    "rnn_gru320x2": ("gru", 40, 320, 2, False, 80),
    "rnn_lstm448": ("lstm", 128, 448, 1, False, 60),
    "rnn_bigru192": ("gru", 64, 192, 1, True, 120),
    "rnn_lstm160x3": ("lstm", 40, 160, 3, False, 150),
    "rnn_gru640": ("gru", 256, 640, 1, False, 50),
    "rnn_lstm96": ("lstm", 32, 96, 1, False, 200),
}
STEPS = {"step_%s_h%d_s%d" % (k, h, s): (k, 8, h, 1, False, s)
         for k in ("gru", "lstm") for h in (8, 16, 32) for s in (100, 400)}


def main():
    out = sys.argv[1]
    which = sys.argv[2] if len(sys.argv) > 2 else "probes"
    os.makedirs(out, exist_ok=True)
    for name, (kind, inputs, hidden, layers, bi, steps) in {"probes": PROBES, "heldout": HELDOUT, "steps": STEPS}[which].items():
        torch.manual_seed(0)
        x = torch.randn(1, steps, inputs)
        torch.onnx.export(Rnn(kind, inputs, hidden, layers, bi).eval(), (x,), os.path.join(out, name + ".onnx"),
                          input_names=["x"], output_names=["y"], opset_version=17)
        with open(os.path.join(out, name + ".inputs.json"), "w") as f:
            json.dump({"model": name, "bind": {}, "inputs": {"x": {"shape": [1, steps, inputs], "dtype": "float32"}}}, f)
        print("exported", name, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
