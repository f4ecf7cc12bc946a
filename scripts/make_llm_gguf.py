"""Write small GGUF LLMs with random weights for the llama.cpp truth tests.

usage: /usr/bin/python3 scripts/make_llm_gguf.py GGUF_PY_DIR OUT_DIR [NAME...]

Each model is a few MB: tiny dims, few layers, real tensor names and shapes of its llama.cpp
architecture, so llama.cpp loads it and sizes every buffer as for a real model. Weight bytes are
random (memory sizes do not depend on values; no forward pass is run). gguf-py comes from the
llama.cpp sources (scripts/fixtures-llm.sh clones them); numpy is Debian's python3-numpy."""
import os
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])
import gguf  # noqa: E402
from gguf import GGMLQuantizationType as Q  # noqa: E402

VOCAB = 2048

# name: arch, layers, embd, heads, kv heads, ff, weight type, extras
MODELS = {
    "llama_mha_f16": dict(arch="llama", L=2, E=256, H=4, KV=4, FF=512, wt=Q.F16),
    "llama_gqa_q8_0": dict(arch="llama", L=4, E=256, H=8, KV=2, FF=768, wt=Q.Q8_0),
    "qwen2_gqa_q4_0": dict(arch="qwen2", L=3, E=256, H=4, KV=2, FF=768, wt=Q.Q4_0, qkv_bias=True),
    "gemma3_swa_q4_k": dict(arch="gemma3", L=6, E=256, H=4, KV=1, FF=512, wt=Q.Q4_K, swa=128,
                            qk_norm=True, post_norms=True, tied=True),
    "mixtral_moe_q8_0": dict(arch="llama", L=2, E=256, H=8, KV=2, FF=512, wt=Q.Q8_0, experts=4, used=2),
    "qwen3moe_q4_k": dict(arch="qwen3moe", L=2, E=256, H=4, KV=2, FF=512, wt=Q.Q4_K, experts=8,
                          used=2, qk_norm=True, head_dim=128),
    # a hybrid: short-convolution layers with a fixed-size recurrent state (KV heads 0) and
    # attention layers (layers 2 and 5), as LFM2 interleaves them
    "lfm2_hybrid_q8_0": dict(arch="lfm2", L=6, E=256, H=4, KV=[0, 0, 2, 0, 0, 2], FF=512, wt=Q.Q8_0,
                             qk_norm=True, tied=True, l_cache=3),
    # multi-head latent attention (MLA): the K cache holds the compressed latent + the rope
    # part (one KV head of 64 + 32), no V cache; one leading dense layer, then MoE layers
    # with a shared expert (DeepSeek-V2/V3 layout, deepseek2 in llama.cpp)
    "deepseek2_mla_q8_0": dict(arch="deepseek2", L=3, E=256, H=4, KV=1, FF=512, wt=Q.Q8_0,
                               experts=4, used=2, shared=1, ff_exp=128, q_lora=96, kv_lora=64,
                               rope=32, qk_nope=32, v_mla=32, dense_lead=1),
    # the same with DeepSeek-V3's routing: sigmoid gating, an expert-selection bias
    # (exp_probs_b), normalised and scaled expert weights
    "deepseek2_v3route_q8_0": dict(arch="deepseek2", L=3, E=256, H=4, KV=1, FF=512, wt=Q.Q8_0,
                                   experts=4, used=2, shared=1, ff_exp=128, q_lora=96,
                                   kv_lora=64, rope=32, qk_nope=32, v_mla=32, dense_lead=1,
                                   v3_routing=True),
    # DeepSeek-V3's routing with expert groups: 8 experts in 4 groups, the best 2 groups kept
    "deepseek2_groups_q8_0": dict(arch="deepseek2", L=3, E=256, H=4, KV=1, FF=512, wt=Q.Q8_0,
                                  experts=8, used=2, shared=1, ff_exp=128, q_lora=96, kv_lora=64,
                                  rope=32, qk_nope=32, v_mla=32, dense_lead=1, v3_routing=True,
                                  groups=4, groups_used=2),
    # the same without the q LoRA (DeepSeek-V2-Lite: one attn_q projection, q_lora_rank 0)
    "deepseek2_lite_q8_0": dict(arch="deepseek2", L=3, E=256, H=4, KV=1, FF=512, wt=Q.Q8_0,
                                experts=4, used=2, shared=1, ff_exp=128, q_lora=0, kv_lora=64,
                                rope=32, qk_nope=32, v_mla=32, dense_lead=1),
    # a split model (gguf-split naming: NAME-0000k-of-00004.gguf, 12 tensors per file)
    "qwen2_split_q4_0": dict(arch="qwen2", L=3, E=256, H=4, KV=2, FF=768, wt=Q.Q4_0, qkv_bias=True,
                             split=12),
}

# --weights-type truth (tests/cli/test_llm_weights_type.sh): f16 models that llama.cpp's quantizer
# turns into every file type; 8 layers for the _M mixes' layer rules, rows not divisible by 256
# (qwen2's ffn_down, gemma3's 320-wide embedding) for the fallbacks, 8 experts for the MoE rules.
MODELS.update({
    "wt_llama_gqa_f16": dict(arch="llama", L=8, E=256, H=8, KV=2, FF=768, wt=Q.F16),
    "wt_qwen2_f16": dict(arch="qwen2", L=6, E=256, H=4, KV=2, FF=640, wt=Q.F16, qkv_bias=True),
    "wt_gemma3_f16": dict(arch="gemma3", L=6, E=320, H=4, KV=1, FF=512, wt=Q.F16, swa=128,
                          qk_norm=True, post_norms=True, tied=True),
    "wt_qwen3moe_f16": dict(arch="qwen3moe", L=4, E=256, H=4, KV=2, FF=512, wt=Q.F16, experts=8,
                            used=2, qk_norm=True, head_dim=128),
    "wt_mixtral_f16": dict(arch="llama", L=4, E=256, H=8, KV=2, FF=512, wt=Q.F16, experts=4, used=2),
})

# Throughput models (bench/llm_speed.sh, tests/cli/test_llm_speed.sh): llama-shaped, GQA, sized
# ~20 M, ~120 M, ~400 M and ~850 M parameters, and MoEs (two of 8 experts, 2 used, and probes of
# the expert products: matrix widths, tokens per expert); "speed_<size>_<type>".
SPEED_SIZES = {
    "20m": dict(arch="llama", L=4, E=512, H=8, KV=2, FF=1408, vocab=8192),
    "120m": dict(arch="llama", L=8, E=1024, H=16, KV=4, FF=2816, vocab=16384),
    "400m": dict(arch="llama", L=12, E=1536, H=24, KV=8, FF=4096, vocab=32000),
    "850m": dict(arch="llama", L=16, E=2048, H=32, KV=8, FF=5632, vocab=32000),
    "moe40m": dict(arch="llama", L=4, E=512, H=8, KV=2, FF=704, vocab=8192, experts=8, used=2),
    "moe": dict(arch="llama", L=8, E=1024, H=16, KV=4, FF=1408, vocab=16384, experts=8, used=2),
    # MoE probes (held out): expert matrices of 256 x 352 to 1536 x 2048; 8, 16 and 4 experts,
    # 2 used (128, 64 and 256 tokens per expert of a 512-token ubatch)
    "moe20m": dict(arch="llama", L=4, E=256, H=4, KV=2, FF=352, vocab=8192, experts=8, used=2),
    "moe100m": dict(arch="llama", L=4, E=768, H=12, KV=4, FF=1024, vocab=8192, experts=8, used=2),
    "moe16x": dict(arch="llama", L=4, E=768, H=12, KV=4, FF=1024, vocab=8192, experts=16, used=2),
    "moe4x": dict(arch="llama", L=4, E=768, H=12, KV=4, FF=1024, vocab=8192, experts=4, used=2),
    "moe1b": dict(arch="llama", L=4, E=1536, H=12, KV=4, FF=2048, vocab=16384, experts=8, used=2),
    # attention heads of 128 (the others: 64), in bench/llm_depth.py's fit; heads of 96, held out
    "120mhd128": dict(arch="llama", L=8, E=1024, H=8, KV=2, FF=2816, vocab=16384),
    "150mhd96": dict(arch="llama", L=6, E=1536, H=16, KV=4, FF=4096, vocab=16384),
}
SPEED_TYPES = {"f32": Q.F32, "f16": Q.F16, "q8_0": Q.Q8_0, "q4_0": Q.Q4_0}


def model_spec(name):
    if name in MODELS:
        return MODELS[name]
    parts = name.split("_", 2)
    if len(parts) == 3 and parts[0] == "speed" and parts[1] in SPEED_SIZES and parts[2] in SPEED_TYPES:
        wt = SPEED_TYPES[parts[2]]
        return dict(SPEED_SIZES[parts[1]], wt=wt, ftype={Q.F32: 0, Q.F16: 1, Q.Q4_0: 2, Q.Q8_0: 7}[wt])
    sys.exit("make_llm_gguf: unknown model %s (speed_{%s}_{%s} or one of %s)" % (
        name, ",".join(SPEED_SIZES), ",".join(SPEED_TYPES), ",".join(MODELS)))

rng = np.random.default_rng(1234)


def tensor(w, name, shape, qt):
    """shape as gguf lists it: innermost first (ne0, ne1, ...)."""
    n = int(np.prod(shape))
    if qt == Q.F32:
        w.add_tensor(name, np.ones(n, dtype=np.float32).reshape(tuple(reversed(shape))))
        return
    if qt == Q.F16:
        w.add_tensor(name, (rng.standard_normal(n, dtype=np.float32) * 0.02).astype(np.float16).reshape(tuple(reversed(shape))))
        return
    bs, ts = gguf.GGML_QUANT_SIZES[qt]
    assert shape[0] % bs == 0, (name, shape, qt)
    nbytes = n // bs * ts
    raw = rng.integers(0, 256, nbytes, dtype=np.uint8)
    byte_shape = tuple(reversed([shape[0] // bs * ts] + list(shape[1:])))
    w.add_tensor(name, raw.reshape(byte_shape), raw_shape=byte_shape, raw_dtype=qt)


def write_mla_layer(w, b, i, m, wt):
    """One deepseek2 block: MLA attention (q_a/q_b, kv_a_mqa, k_b/v_b), dense or MoE FFN."""
    E, H, X = m["E"], m["H"], m["experts"]
    qk = m["qk_nope"] + m["rope"]
    tensor(w, b + "attn_norm.weight", (E,), Q.F32)
    if m["q_lora"]:
        tensor(w, b + "attn_q_a_norm.weight", (m["q_lora"],), Q.F32)
    tensor(w, b + "attn_kv_a_norm.weight", (m["kv_lora"],), Q.F32)
    if m["q_lora"]:
        tensor(w, b + "attn_q_a.weight", (E, m["q_lora"]), wt)
        tensor(w, b + "attn_q_b.weight", (m["q_lora"], H * qk), wt)
    else:
        tensor(w, b + "attn_q.weight", (E, H * qk), wt)
    tensor(w, b + "attn_kv_a_mqa.weight", (E, m["kv_lora"] + m["rope"]), wt)
    tensor(w, b + "attn_k_b.weight", (m["qk_nope"], m["kv_lora"], H), wt)
    tensor(w, b + "attn_v_b.weight", (m["kv_lora"], m["v_mla"], H), wt)
    tensor(w, b + "attn_output.weight", (H * m["v_mla"], E), wt)
    tensor(w, b + "ffn_norm.weight", (E,), Q.F32)
    if i < m["dense_lead"]:
        tensor(w, b + "ffn_gate.weight", (E, m["FF"]), wt)
        tensor(w, b + "ffn_up.weight", (E, m["FF"]), wt)
        tensor(w, b + "ffn_down.weight", (m["FF"], E), wt)
        return
    F, S = m["ff_exp"], m["ff_exp"] * m["shared"]
    tensor(w, b + "ffn_gate_inp.weight", (E, X), Q.F32)
    if m.get("v3_routing"):
        tensor(w, b + "exp_probs_b.bias", (X,), Q.F32)
    tensor(w, b + "ffn_gate_exps.weight", (E, F, X), wt)
    tensor(w, b + "ffn_up_exps.weight", (E, F, X), wt)
    tensor(w, b + "ffn_down_exps.weight", (F, E, X), wt)
    tensor(w, b + "ffn_gate_shexp.weight", (E, S), wt)
    tensor(w, b + "ffn_up_shexp.weight", (E, S), wt)
    tensor(w, b + "ffn_down_shexp.weight", (S, E), wt)


def write(path, name, m):
    arch = m["arch"]
    vocab = m.get("vocab", VOCAB)
    w = gguf.GGUFWriter(path, arch, split_max_tensors=m.get("split", 0))
    L, E, H, KV, FF, wt = m["L"], m["E"], m["H"], m["KV"], m["FF"], m["wt"]
    kv_of = (lambda i: KV[i]) if isinstance(KV, list) else (lambda i: KV)
    hd = m.get("head_dim", E // H)
    w.add_name(name)
    w.add_block_count(L)
    w.add_context_length(32768)
    w.add_embedding_length(E)
    w.add_feed_forward_length(FF)
    w.add_head_count(H)
    w.add_head_count_kv(KV)
    if "kv_lora" in m:  # MLA: the cache's K row is the latent + the rope part, V the latent
        w.add_key_length(m["kv_lora"] + m["rope"])
        w.add_value_length(m["kv_lora"])
        w.add_key_length_mla(m["qk_nope"] + m["rope"])
        w.add_value_length_mla(m["v_mla"])
        w.add_q_lora_rank(m["q_lora"])
        w.add_kv_lora_rank(m["kv_lora"])
        w.add_rope_dimension_count(m["rope"])
        w.add_leading_dense_block_count(m["dense_lead"])
        w.add_expert_shared_count(m["shared"])
        w.add_expert_feed_forward_length(m["ff_exp"])
        if m.get("v3_routing"):
            w.add_expert_weights_norm(True)
            w.add_expert_weights_scale(2.5)
            w.add_expert_gating_func(gguf.ExpertGatingFuncType.SIGMOID)
        if "groups" in m:
            w.add_expert_group_count(m["groups"])
            w.add_expert_group_used_count(m["groups_used"])
    else:
        w.add_key_length(hd)
        w.add_value_length(hd)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_file_type(m.get("ftype", 1 if wt == Q.F16 else 7))
    if "swa" in m:
        w.add_sliding_window(m["swa"])
    if "l_cache" in m:
        w.add_uint32(arch + ".shortconv.l_cache", m["l_cache"])
    if "experts" in m:
        w.add_expert_count(m["experts"])
        w.add_expert_used_count(m["used"])
        if arch == "qwen3moe":
            w.add_expert_feed_forward_length(FF)
    w.add_tokenizer_model("llama")
    w.add_token_list(["<unk>", "<s>", "</s>"] + ["t%d" % i for i in range(vocab - 3)])
    w.add_token_scores([0.0] * vocab)
    w.add_token_types([2, 3, 3] + [1] * (vocab - 3))
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    tensor(w, "token_embd.weight", (E, vocab), wt)
    tensor(w, "token_embd_norm.weight" if arch == "lfm2" else "output_norm.weight", (E,), Q.F32)
    if not m.get("tied"):
        tensor(w, "output.weight", (E, vocab), wt)
    for i in range(L):
        b = "blk.%d." % i
        if "kv_lora" in m:
            write_mla_layer(w, b, i, m, wt)
            continue
        tensor(w, b + "attn_norm.weight", (E,), Q.F32)
        kv = kv_of(i)
        if kv == 0:  # a short-convolution (recurrent) layer
            tensor(w, b + "shortconv.conv.weight", (m["l_cache"], E), Q.F32)
            tensor(w, b + "shortconv.in_proj.weight", (E, 3 * E), wt)
            tensor(w, b + "shortconv.out_proj.weight", (E, E), wt)
        else:
            tensor(w, b + "attn_q.weight", (E, H * hd), wt)
            tensor(w, b + "attn_k.weight", (E, kv * hd), wt)
            tensor(w, b + "attn_v.weight", (E, kv * hd), wt)
            if m.get("qkv_bias"):
                tensor(w, b + "attn_q.bias", (H * hd,), Q.F32)
                tensor(w, b + "attn_k.bias", (kv * hd,), Q.F32)
                tensor(w, b + "attn_v.bias", (kv * hd,), Q.F32)
            if m.get("qk_norm"):
                tensor(w, b + "attn_q_norm.weight", (hd,), Q.F32)
                tensor(w, b + "attn_k_norm.weight", (hd,), Q.F32)
            tensor(w, b + "attn_output.weight", (H * hd, E), wt)
        if m.get("post_norms"):
            tensor(w, b + "post_attention_norm.weight", (E,), Q.F32)
            tensor(w, b + "post_ffw_norm.weight", (E,), Q.F32)
        tensor(w, b + "ffn_norm.weight", (E,), Q.F32)
        if "experts" in m:
            X = m["experts"]
            tensor(w, b + "ffn_gate_inp.weight", (E, X), Q.F32)
            tensor(w, b + "ffn_gate_exps.weight", (E, FF, X), wt)
            tensor(w, b + "ffn_up_exps.weight", (E, FF, X), wt)
            down_t = wt if FF % gguf.GGML_QUANT_SIZES[wt][0] == 0 else Q.Q8_0
            tensor(w, b + "ffn_down_exps.weight", (FF, E, X), down_t)
        else:
            tensor(w, b + "ffn_gate.weight", (E, FF), wt)
            tensor(w, b + "ffn_up.weight", (E, FF), wt)
            tensor(w, b + "ffn_down.weight", (FF, E), wt)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main():
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    names = sys.argv[3:] or [n for n in MODELS if not n.startswith("wt_")]
    for n in names:
        path = os.path.join(out, n + ".gguf")
        m = model_spec(n)
        if "split" in m:
            if not any(f.startswith(n + "-00001-of-") for f in os.listdir(out)):
                write(path, n, m)  # gguf-py names the shards itself
            continue
        if not os.path.exists(path):
            write(path + ".tmp", n, m)
            os.replace(path + ".tmp", path)


main()
