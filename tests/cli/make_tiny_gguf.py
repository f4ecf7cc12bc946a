"""Write a tiny llama-like GGUF v3 file (metadata, tensor infos and zero tensor
data, 32-aligned): 4 layers, embedding 256, 8 heads (2 KV heads), vocab 1000, f16 token
embeddings and q8_0 layer weights. Shared by the CLI tests.
usage: /usr/bin/python3 tests/cli/make_tiny_gguf.py OUT.gguf"""
import struct
import sys


def s(x):
    b = x.encode()
    return struct.pack("<Q", len(b)) + b


def kv_u32(k, v):
    return s(k) + struct.pack("<II", 4, v)


kvs = [
    s("general.architecture") + struct.pack("<I", 8) + s("llama"),
    kv_u32("llama.block_count", 4),
    kv_u32("llama.context_length", 2048),
    kv_u32("llama.embedding_length", 256),
    kv_u32("llama.feed_forward_length", 688),
    kv_u32("llama.attention.head_count", 8),
    kv_u32("llama.attention.head_count_kv", 2),
    s("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 1000) + b"".join(s("t%d" % i) for i in range(1000)),
]
tensors = [("token_embd.weight", (256, 1000), 1)]  # f16
for layer in range(4):
    for n, dims in (("attn_q", (256, 256)), ("attn_k", (256, 64)), ("attn_v", (256, 64)),
                    ("attn_output", (256, 256)), ("ffn_gate", (256, 688)), ("ffn_up", (256, 688)),
                    ("ffn_down", (688, 256))):
        tensors.append(("blk.%d.%s.weight" % (layer, n), dims, 8))  # q8_0
out = struct.pack("<IIQQ", 0x46554747, 3, len(tensors), len(kvs)) + b"".join(kvs)
off = 0
for name, dims, t in tensors:
    size = dims[0] * dims[1] * 2 if t == 1 else dims[0] * dims[1] // 32 * 34
    out += s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
    out += struct.pack("<IQ", t, off)
    off += (size + 31) // 32 * 32
out += b"\0" * (-len(out) % 32) + b"\0" * off
with open(sys.argv[1], "wb") as f:
    f.write(out)
