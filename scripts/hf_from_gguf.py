"""Write Hugging Face-style checkpoints from the test GGUFs, for the config.json truth test
(tests/cli/test_hf_config.sh): for each GGUF, OUT/<name>/config/config.json (the
hyper-parameters only) and OUT/<name>/st/ (config.json plus model.safetensors with every
tensor at its HF shape, zeros: 2-D and larger in F16, 1-D in BF16 as checkpoints store
norms). Prints one line per model: name, the GGUF's parameter count.
usage: /usr/bin/python3 scripts/hf_from_gguf.py GGUF_PY_DIR OUT MODEL.gguf..."""
import json
import os
import struct
import sys

sys.path.insert(0, sys.argv[1])
import gguf  # noqa: E402

OUT = sys.argv[2]
MODEL_TYPE = {"llama": "llama", "qwen2": "qwen2", "qwen3": "qwen3", "gemma3": "gemma3_text",
              "qwen3moe": "qwen3_moe", "gemma2": "gemma2", "phi3": "phi3"}


def field(r, key, default=None):
    f = r.fields.get(key)
    return f.contents() if f is not None else default


def write_safetensors(path, tensors):
    header, off = {}, 0
    for name, shape in tensors:
        n = 1
        for d in shape:
            n *= d
        dtype = "BF16" if len(shape) <= 1 else "F16"
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + 2 * n]}
        off += 2 * n
    b = json.dumps(header).encode()
    b += b" " * (-len(b) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(b)) + b)
        f.truncate(8 + len(b) + off)


for path in sys.argv[3:]:
    name = os.path.basename(path)[:-5]
    r = gguf.GGUFReader(path)
    arch = field(r, "general.architecture")
    a = lambda k, d=None: field(r, f"{arch}.{k}", d)  # noqa: E731
    names = [t.name for t in r.tensors]
    cfg = {
        "model_type": MODEL_TYPE[arch] if not a("expert_count") or arch != "llama" else "mixtral",
        "num_hidden_layers": a("block_count"),
        "hidden_size": a("embedding_length"),
        "intermediate_size": a("feed_forward_length"),
        "num_attention_heads": a("attention.head_count"),
        "num_key_value_heads": a("attention.head_count_kv"),
        "head_dim": a("attention.key_length"),
        "max_position_embeddings": a("context_length"),
        "vocab_size": next(int(t.shape[1]) for t in r.tensors if t.name == "token_embd.weight"),
        "tie_word_embeddings": "output.weight" not in names,
        "torch_dtype": "bfloat16",
    }
    if a("expert_count"):
        key = "num_local_experts" if arch == "llama" else "num_experts"
        cfg[key] = a("expert_count")
        cfg["num_experts_per_tok"] = a("expert_used_count")
        if a("expert_feed_forward_length"):
            cfg["moe_intermediate_size"] = a("expert_feed_forward_length")
    if a("attention.sliding_window"):
        cfg["sliding_window"] = a("attention.sliding_window")
    if a("attention.sliding_window_pattern") is not None:
        cfg["sliding_window_pattern"] = a("attention.sliding_window_pattern")
    cfg = {k: v for k, v in cfg.items() if v is not None}
    for sub in ("config", "st"):
        os.makedirs(os.path.join(OUT, name, sub), exist_ok=True)
        with open(os.path.join(OUT, name, sub, "config.json"), "w") as f:
            json.dump(cfg, f, indent=1)
    # the same tensors at HF shapes (GGUF lists dims innermost first)
    write_safetensors(os.path.join(OUT, name, "st", "model.safetensors"),
                      [(t.name, [int(d) for d in reversed(t.shape)]) for t in r.tensors])
    print(name, sum(int(t.n_elements) for t in r.tensors))
