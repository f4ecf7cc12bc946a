"""heldout20 (session 36): quantized models, as onnxruntime's quantization tool writes them
(quantize_graph.py: dynamic int8 MatMulInteger, QDQ int8), into .fixtures-local/heldout20 with
their weights inside the .onnx (as quantized models ship) and the float model's inputs.json.

The sets were decided before any quantized model ran in onnxruntime or in tensorplan:
  fit (may drive a rule):  bert_base_dynq (per tensor), mobilenet_v2_qdq
  held out:                gpt2_past_dynqc (per column), t5_encoder_dynqc, llama_step_dynq,
                           resnet50_qdq, yolo_like_qdq
The float models come from scripts/export_models.py (.fixtures/models) and
export_heldout19.py (.fixtures-local/heldout19), exported first when absent.

usage: /usr/bin/python3 bench/ort_memory/export_heldout20.py [NAME...]
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
OUT = os.path.join(ROOT, ".fixtures-local", "heldout20")

# name: (float model's directory, its name, quantize_graph.py mode)
MODELS = {
    "bert_base_dynq": (".fixtures/models", "bert_base", "dynamic"),
    "mobilenet_v2_qdq": (".fixtures/models", "mobilenet_v2", "qdq"),
    "gpt2_past_dynqc": (".fixtures/models", "gpt2_past", "dynamic_channel"),
    "t5_encoder_dynqc": (".fixtures-local/heldout19", "t5_encoder", "dynamic_channel"),
    "llama_step_dynq": (".fixtures-local/heldout19", "llama_step", "dynamic"),
    "resnet50_qdq": (".fixtures/models", "resnet50", "qdq"),
    "yolo_like_qdq": (".fixtures-local/heldout19", "yolo_like", "qdq"),
}


def source(directory, name):
    base = os.path.join(ROOT, directory, name)
    if not os.path.exists(base + ".onnx"):
        if directory.endswith("heldout19"):
            cmd = [sys.executable, os.path.join(HERE, "export_heldout19.py"), name]
        else:
            cmd = [sys.executable, os.path.join(ROOT, "scripts", "export_models.py"), name]
        subprocess.run(cmd, check=True)
    return base


def main(names):
    os.makedirs(OUT, exist_ok=True)
    failed = 0
    for n in names or list(MODELS):
        directory, src, mode = MODELS[n]
        dst = os.path.join(OUT, n)
        if os.path.exists(dst + ".onnx") and os.path.exists(dst + ".inputs.json"):
            continue
        base = source(directory, src)
        r = subprocess.run([sys.executable, os.path.join(HERE, "quantize_graph.py"), mode,
                            base + ".onnx", dst + ".onnx"])
        if r.returncode != 0:
            print("heldout20: %s failed" % n, file=sys.stderr)
            failed = 1
            continue
        shutil.copy(base + ".inputs.json", dst + ".inputs.json")
        print("quantized", n, flush=True)
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
