#!/usr/bin/python3
"""Export the ONNX models that tests/test_onnx_models.c checks against onnxruntime.

Run with Debian's /usr/bin/python3 (python3-torch 1.13, python3-torchvision,
python3-onnx).  For every model NAME this writes, into OUTDIR (default
.fixtures/models):

  NAME.onnx        the graph with its weights stored externally (graph only, small)
  NAME.onnx.data   the weights (random: weights=None), read by onnxruntime only
  NAME.all.onnx    a copy whose graph outputs are every node output, so that
                   scripts/ort_shapes.js can record each intermediate shape
  NAME.vi.onnx     a copy with onnx's shape inference in value_info (cross-check)
  NAME.inputs.json the fixed input sizes and the symbol bindings they imply, and a
                   second set ("alt") with every symbol moved

Models are exported at opset 17 with dynamic batch / sequence axes.  A model is
skipped when its files exist already (idempotent).  Usage:
  export_models.py [--out DIR] [NAME ...]
"""
import argparse
import json
import math
import os
import sys

import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F

OPSET = 17

# ---------------------------------------------------------------- GPT-2 small


class GPT2Attention(nn.Module):
    def __init__(self, d, heads, ctx):
        super().__init__()
        self.h = heads
        self.d = d
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.register_buffer("bias", torch.tril(torch.ones(ctx, ctx, dtype=torch.bool)).view(1, 1, ctx, ctx))

    def split_heads(self, x):
        b, s, _ = x.size()
        return x.view(b, s, self.h, self.d // self.h).permute(0, 2, 1, 3)

    def forward(self, x, past=None):
        q, k, v = self.c_attn(x).split(self.d, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        if past is not None:
            k = torch.cat([past[0], k], dim=-2)
            v = torch.cat([past[1], v], dim=-2)
        present = (k, v)
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.d // self.h)
        qlen, klen = q.size(-2), k.size(-2)
        mask = self.bias[:, :, klen - qlen : klen, :klen]
        w = torch.where(mask, w, torch.tensor(torch.finfo(w.dtype).min, dtype=w.dtype))
        w = F.softmax(w, dim=-1)
        a = torch.matmul(w, v)
        b, _, s, _ = a.size()
        a = a.permute(0, 2, 1, 3).contiguous().view(b, s, self.d)
        return self.c_proj(a), present


class GPT2Block(nn.Module):
    def __init__(self, d, heads, ctx):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d, eps=1e-5)
        self.attn = GPT2Attention(d, heads, ctx)
        self.ln_2 = nn.LayerNorm(d, eps=1e-5)
        self.c_fc = nn.Linear(d, 4 * d)
        self.c_proj = nn.Linear(4 * d, d)

    def forward(self, x, past=None):
        a, present = self.attn(self.ln_1(x), past)
        x = x + a
        h = F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")
        return x + self.c_proj(h), present


class GPT2(nn.Module):
    def __init__(self, vocab=50257, ctx=1024, d=768, layers=12, heads=12, with_past=False):
        super().__init__()
        self.with_past = with_past
        self.layers = layers
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(ctx, d)
        self.h = nn.ModuleList([GPT2Block(d, heads, ctx) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d, eps=1e-5)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # tied

    def forward(self, input_ids, *past):
        past_len = past[0].size(-2) if past else 0
        pos = torch.arange(past_len, past_len + input_ids.size(-1), dtype=torch.long).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(pos)
        presents = []
        for i, blk in enumerate(self.h):
            p = (past[2 * i], past[2 * i + 1]) if past else None
            x, pr = blk(x, p)
            presents.extend(pr)
        logits = self.lm_head(self.ln_f(x))
        return (logits, *presents)


# ---------------------------------------------------------------- BERT base


class BertLayer(nn.Module):
    def __init__(self, d, heads, ff):
        super().__init__()
        self.h = heads
        self.d = d
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.o = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d, eps=1e-12)
        self.i = nn.Linear(d, ff)
        self.out = nn.Linear(ff, d)
        self.ln2 = nn.LayerNorm(d, eps=1e-12)

    def heads(self, x):
        return x.view(x.size(0), x.size(1), self.h, self.d // self.h).permute(0, 2, 1, 3)

    def forward(self, x, ext_mask):
        q, k, v = self.heads(self.q(x)), self.heads(self.k(x)), self.heads(self.v(x))
        s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.d // self.h) + ext_mask
        a = torch.matmul(F.softmax(s, dim=-1), v).permute(0, 2, 1, 3).contiguous()
        a = a.view(a.size(0), a.size(1), self.d)
        x = self.ln1(x + self.o(a))
        return self.ln2(x + self.out(F.gelu(self.i(x))))


class Bert(nn.Module):
    def __init__(self, vocab=30522, d=768, layers=12, heads=12, ff=3072, maxpos=512):
        super().__init__()
        self.word = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(maxpos, d)
        self.tok = nn.Embedding(2, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList([BertLayer(d, heads, ff) for _ in range(layers)])
        self.pool = nn.Linear(d, d)

    def forward(self, input_ids, attention_mask, token_type_ids):
        seq = input_ids.size(1)
        pos = torch.arange(seq, dtype=torch.long).unsqueeze(0).expand_as(input_ids)
        x = self.ln(self.word(input_ids) + self.pos(pos) + self.tok(token_type_ids))
        ext = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * -10000.0
        for layer in self.layers:
            x = layer(x, ext)
        pooled = torch.tanh(self.pool(x[:, 0]))
        return x, pooled


# ---------------------------------------------------------------- a tiny U-Net (Resize)


class TinyUNet(nn.Module):
    """Down/up-sampling with F.interpolate: Resize by scale factor (nearest) and by a
    size computed from another tensor's Shape (bilinear), as segmentation nets do."""

    def __init__(self):
        super().__init__()
        self.enc1 = nn.Conv2d(3, 16, 3, padding=1)
        self.enc2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.enc3 = nn.Conv2d(32, 64, 3, stride=2, padding=1)
        self.dec2 = nn.Conv2d(64 + 32, 32, 3, padding=1)
        self.dec1 = nn.Conv2d(32 + 16, 16, 3, padding=1)
        self.head = nn.Conv2d(16, 4, 1)

    def forward(self, x):
        e1 = F.relu(self.enc1(x))
        e2 = F.relu(self.enc2(e1))
        e3 = F.relu(self.enc3(e2))
        u2 = F.interpolate(e3, scale_factor=2.0, mode="nearest")
        d2 = F.relu(self.dec2(torch.cat([u2, e2], 1)))
        u1 = F.interpolate(d2, size=e1.shape[-2:], mode="bilinear", align_corners=False)
        d1 = F.relu(self.dec1(torch.cat([u1, e1], 1)))
        return self.head(d1)


def unet():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 64, 96)
    dyn = {"input": {0: "batch", 2: "height", 3: "width"},
           "logits": {0: "batch", 2: "height", 3: "width"}}
    return TinyUNet(), (x,), ["input"], ["logits"], dyn, {"input": ([2, 3, 64, 96], "float32")}, {
        "batch": 2, "height": 64, "width": 96}


# ---------------------------------------------------------------- registry


def vision(ctor, size=224):
    def make():
        m = ctor(weights=None)
        x = torch.randn(2, 3, size, size)
        return m, (x,), ["input"], ["logits"], {"input": {0: "batch"}, "logits": {0: "batch"}}, {
            "input": ([2, 3, size, size], "float32")
        }, {"batch": 2}

    return make


def video(ctor, frames, size=112):
    """A torchvision video classifier (random weights, seed 0) on one clip of `frames` frames of
    size x size (112 unless its stem needs more): input "clip", output "logits" (the held-out
    sets' video models)."""
    def make():
        torch.manual_seed(0)
        m = ctor(weights=None).eval()
        x = torch.randn(1, 3, frames, size, size)
        return m, (x,), ["clip"], ["logits"], {"clip": {0: "batch"}, "logits": {0: "batch"}}, {
            "clip": ([1, 3, frames, size, size], "float32")
        }, {"batch": 1}

    return make


def gpt2(with_past):
    def make():
        torch.manual_seed(0)
        m = GPT2(with_past=with_past)
        seq, past = (4, 6) if with_past else (8, 0)
        ids = torch.randint(0, 50257, (2, seq))
        names, dyn, shapes = ["input_ids"], {"input_ids": {0: "batch", 1: "seq"}}, {
            "input_ids": ([2, seq], "int64")
        }
        args = [ids]
        outs = ["logits"]
        dyn["logits"] = {0: "batch", 1: "seq"}
        for i in range(m.layers):
            for kv in ("key", "value"):
                if with_past:
                    n = "past_%s_%d" % (kv, i)
                    names.append(n)
                    args.append(torch.randn(2, 12, past, 64))
                    dyn[n] = {0: "batch", 2: "past"}
                    shapes[n] = ([2, 12, past, 64], "float32")
                o = "present_%s_%d" % (kv, i)
                outs.append(o)
                dyn[o] = {0: "batch", 2: "total" if with_past else "seq"}
        bind = {"batch": 2, "seq": seq}
        if with_past:
            bind["past"] = past
        return m, tuple(args), names, outs, dyn, shapes, bind

    return make


def bert():
    torch.manual_seed(0)
    m = Bert()
    b, s = 2, 16
    ids = torch.randint(0, 30522, (b, s))
    mask = torch.ones(b, s, dtype=torch.long)
    tt = torch.zeros(b, s, dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    dyn = {n: {0: "batch", 1: "seq"} for n in names}
    dyn["last_hidden_state"] = {0: "batch", 1: "seq"}
    dyn["pooler_output"] = {0: "batch"}
    shapes = {n: ([b, s], "int64") for n in names}
    return m, (ids, mask, tt), names, ["last_hidden_state", "pooler_output"], dyn, shapes, {"batch": b, "seq": s}


def models():
    import torchvision.models as tv

    return {
        "resnet50": vision(tv.resnet50),
        "mobilenet_v2": vision(tv.mobilenet_v2),
        "efficientnet_b0": vision(tv.efficientnet_b0),
        "densenet121": vision(tv.densenet121),
        "inception_v3": vision(lambda weights: tv.inception_v3(weights=weights, aux_logits=True, init_weights=False), 299),
        "convnext_tiny": vision(tv.convnext_tiny),
        "swin_t": vision(tv.swin_t),
        "vit_b_16": vision(tv.vit_b_16),
        "gpt2": gpt2(False),
        "gpt2_past": gpt2(True),
        "bert_base": bert,
        "unet_tiny": unet,
    }


def value_info_copy(model_path, out_path):
    """Copy of the model with onnx's own shape inference written into value_info, to check
    that tensorplan's inferred shapes never contradict it (tests/test_onnx_models.c)."""
    m = onnx.load(model_path, load_external_data=False)
    onnx.save(onnx.shape_inference.infer_shapes(m), out_path)


def all_outputs_copy(model_path, out_path):
    """Copy of the model whose graph outputs are every node output (types from
    onnx's inference; onnxruntime reports the real shape and type at run time)."""
    m = onnx.load(model_path, load_external_data=False)
    inferred = onnx.shape_inference.infer_shapes(m)
    types = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.output) + list(inferred.graph.input):
        types[vi.name] = vi.type.tensor_type.elem_type
    for init in m.graph.initializer:
        types[init.name] = init.data_type
    have = {o.name for o in m.graph.output}
    for node in m.graph.node:
        for o in node.output:
            if o and o not in have and types.get(o, 0):
                have.add(o)
                m.graph.output.append(onnx.helper.make_tensor_value_info(o, types[o], None))
    onnx.save(m, out_path)


ALT_DELTA = {"batch": 1, "seq": 3, "past": 2, "height": 32, "width": 32}


def add_alt_sizes(base):
    """Second input sizes (every symbol moved by ALT_DELTA) in NAME.inputs.json, so that the
    ground truth is checked under two bindings: a dim that is wrongly static, or a wrong
    expression that happens to agree at one size, shows up."""
    spec = json.load(open(base + ".inputs.json"))
    if "alt" in spec:
        return False
    m = onnx.load(base + ".onnx", load_external_data=False)
    bind = {k: v + ALT_DELTA.get(k, 1) for k, v in spec["bind"].items()}
    inputs = {}
    for vi in m.graph.input:
        if vi.name not in spec["inputs"]:
            continue
        shape = list(spec["inputs"][vi.name]["shape"])
        for i, d in enumerate(vi.type.tensor_type.shape.dim):
            if d.dim_param in bind:
                shape[i] = bind[d.dim_param]
        inputs[vi.name] = {"shape": shape, "dtype": spec["inputs"][vi.name]["dtype"]}
    spec["alt"] = {"bind": bind, "inputs": inputs}
    with open(base + ".inputs.json", "w") as f:
        json.dump(spec, f)
    return True


def export(name, make, outdir):
    base = os.path.join(outdir, name)
    files = [base + ".onnx", base + ".onnx.data", base + ".all.onnx", base + ".inputs.json"]
    if all(os.path.exists(f) for f in files):
        done = False
        if not os.path.exists(base + ".vi.onnx"):
            value_info_copy(base + ".onnx", base + ".vi.onnx")
            done = True
        return add_alt_sizes(base) or done
    model, args, in_names, out_names, dyn, shapes, bind = make()
    model.eval()
    tmp = base + ".tmp.onnx"
    # Not under torch.no_grad(): with grad enabled nn.MultiheadAttention (vit_b_16)
    # takes its exportable path instead of the fused _native_multi_head_attention.
    torch.onnx.export(
        model, args, tmp, input_names=in_names, output_names=out_names, dynamic_axes=dyn,
        opset_version=OPSET, do_constant_folding=True,
    )
    m = onnx.load(tmp)
    os.remove(tmp)
    if os.path.exists(base + ".onnx.data"):
        os.remove(base + ".onnx.data")
    onnx.save_model(m, base + ".onnx", save_as_external_data=True, all_tensors_to_one_file=True,
                    location=name + ".onnx.data", size_threshold=1024)
    all_outputs_copy(base + ".onnx", base + ".all.onnx")
    value_info_copy(base + ".onnx", base + ".vi.onnx")
    with open(base + ".inputs.json", "w") as f:
        json.dump({"model": name, "bind": bind,
                   "inputs": {k: {"shape": v[0], "dtype": v[1]} for k, v in shapes.items()}}, f)
    add_alt_sizes(base)
    return True


def export_each(names, one):
    """Run one(name) for every name, going on past a failure and naming it on stderr; 1 when
    any failed, else 0 (the exit status of an export script)."""
    failed = []
    for n in names:
        try:
            one(n)
        except Exception as e:  # keep going: report which model failed
            print("export of %s failed: %s" % (n, e), file=sys.stderr, flush=True)
            failed.append(n)
    return 1 if failed else 0


def parse_export_args(default_out):
    """The export scripts' command line: [--out DIR] [NAME...]; creates DIR and keeps torch on
    one thread (the exports run beside other jobs)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=default_out)
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    torch.set_num_threads(1)
    return a


def main():
    a = parse_export_args(os.path.join(os.path.dirname(__file__), "..", ".fixtures", "models"))
    reg = models()

    def one(n):
        if export(n, reg[n], a.out):
            print("exported", n, flush=True)

    return export_each(a.names or list(reg), one)


if __name__ == "__main__":
    sys.exit(main())
