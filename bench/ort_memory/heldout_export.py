"""The command line shared by the held-out export scripts (export_heldout2.py, 3 and 4):
export each model of a registry {name: (make, embedded)} into OUTDIR (default
.fixtures-local/SET), and for an embedded one also a copy with its weights inside the .onnx
(NAME_embedded.onnx). Run with Debian's /usr/bin/python3."""
import os
import shutil

import onnx

import export_models as em


def run(models, set_name):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    a = em.parse_export_args(os.path.join(root, ".fixtures-local", set_name))
    reg = models()

    def one(n):
        make, embedded = reg[n]
        if em.export(n, make, a.out):
            print("exported", n, flush=True)
        if embedded and not os.path.exists(os.path.join(a.out, n + "_embedded.onnx")):
            base = os.path.join(a.out, n)
            onnx.save(onnx.load(base + ".onnx"), base + "_embedded.onnx", save_as_external_data=False)
            shutil.copy(base + ".inputs.json", base + "_embedded.inputs.json")
            print("embedded", n, flush=True)

    return em.export_each(a.names or list(reg), one)
