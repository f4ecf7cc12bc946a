"""Write the seed inputs of the fuzz targets that have no natural sample files:
GGUF headers (fuzz/corpus/gguf/seed_*), calibration cache files
(fuzz/corpus/calib_cache/seed_*) and sysmem inputs (fuzz/corpus/sysmem/seed_*,
built from tests/fixtures/sysmem). The GGUF files follow the layout of
tests/cli/make_tiny_gguf.py (metadata and tensor infos, no tensor data) and
cover every metadata value type, GGUF v2 and v3, MoE expert tensors and the
error paths (unknown tensor type, missing head count, bad magic).

usage: /usr/bin/python3 scripts/make_fuzz_seeds.py [REPO_ROOT]"""
import os
import struct
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")

# GGUF value types
U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)


def s(x):
    b = x.encode()
    return struct.pack("<Q", len(b)) + b


def kv(key, t, payload):
    return s(key) + struct.pack("<I", t) + payload


def kv_u32(k, v):
    return kv(k, U32, struct.pack("<I", v))


def gguf(version, kvs, tensors):
    out = struct.pack("<IIQQ", 0x46554747, version, len(tensors), len(kvs)) + b"".join(kvs)
    for name, dims, t in tensors:
        out += s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", t, 0)
    return out


def llama_kvs(arch="llama", heads=True, tokens=8, extra=()):
    kvs = [
        kv("general.architecture", STRING, s(arch)),
        kv("general.name", STRING, s("fuzz seed")),
        kv_u32(arch + ".block_count", 2),
        kv(arch + ".context_length", U64, struct.pack("<Q", 512)),
        kv(arch + ".embedding_length", I32, struct.pack("<i", 64)),
        kv(arch + ".feed_forward_length", U16, struct.pack("<H", 176)),
    ]
    if heads:
        kvs += [kv(arch + ".attention.head_count", U8, struct.pack("<B", 4)),
                kv(arch + ".attention.head_count_kv", I64, struct.pack("<q", 2))]
    kvs += [
        kv(arch + ".rope.freq_base", F32, struct.pack("<f", 10000.0)),
        kv(arch + ".attention.layer_norm_rms_epsilon", F64, struct.pack("<d", 1e-5)),
        kv("general.quantized", BOOL, b"\x01"),
        kv("general.file_type", I16, struct.pack("<h", 7)),
        kv("general.alignment", I8, struct.pack("<b", 32)),
        kv("tokenizer.ggml.scores", ARRAY, struct.pack("<IQ", F32, 3) + struct.pack("<3f", 0, -1, -2)),
        kv("tokenizer.ggml.merges", ARRAY,
           struct.pack("<IQ", ARRAY, 2) + struct.pack("<IQ", U8, 2) + b"ab" +
           struct.pack("<IQ", STRING, 1) + s("c d")),
    ]
    if tokens:
        kvs.append(kv("tokenizer.ggml.tokens", ARRAY,
                      struct.pack("<IQ", STRING, tokens) + b"".join(s("t%d" % i) for i in range(tokens))))
    return kvs + list(extra)


def llama_tensors(q_type=8, layers=2, moe=False):
    t = [("token_embd.weight", (64, 32), 1), ("output_norm.weight", (64,), 0)]
    for l in range(layers):
        for n, dims in (("attn_q", (64, 64)), ("attn_k", (64, 32)), ("attn_v", (64, 32)),
                        ("attn_output", (64, 64))):
            t.append(("blk.%d.%s.weight" % (l, n), dims, q_type))
        if moe:
            for n, dims in (("ffn_gate_exps", (64, 160, 4)), ("ffn_up_exps", (64, 160, 4)),
                            ("ffn_down_exps", (160, 64, 4))):
                t.append(("blk.%d.%s.weight" % (l, n), dims, q_type))
            t.append(("blk.%d.ffn_gate_inp.weight" % l, (64, 4), 0))
        else:
            for n, dims in (("ffn_gate", (64, 176)), ("ffn_up", (64, 176)), ("ffn_down", (176, 64))):
                t.append(("blk.%d.%s.weight" % (l, n), dims, 12 if n == "ffn_down" else q_type))
    return t


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def gguf_seeds(d):
    write(d + "/seed_llama_v3.gguf", gguf(3, llama_kvs(), llama_tensors()))
    write(d + "/seed_llama_v2.gguf", gguf(2, llama_kvs(tokens=0), llama_tensors(q_type=2)))
    moe = llama_kvs(arch="qwen2moe", extra=[kv_u32("qwen2moe.expert_count", 4),
                                            kv_u32("qwen2moe.expert_used_count", 2),
                                            kv_u32("qwen2moe.attention.key_length", 16),
                                            kv_u32("qwen2moe.vocab_size", 32)])
    write(d + "/seed_moe.gguf", gguf(3, moe, llama_tensors(moe=True)))
    write(d + "/seed_no_heads.gguf", gguf(3, llama_kvs(heads=False), llama_tensors()))
    write(d + "/seed_unknown_type.gguf", gguf(3, llama_kvs(), [("x.weight", (32,), 99)]))
    write(d + "/seed_bad_magic.gguf", b"GGML" + gguf(3, llama_kvs(), [])[4:])


CPU_MODEL = b"""# tensorplan device model (units: ns, GFLOP/s, GB/s = bytes/ns)
format=1
key=Intel(R) Xeon(R) CPU @ 2.20GHz|t2
name=cpu
kind=cpu
source=measured
gemm_impl=builtin
gemm=16:3.5 64:21.25 256:48.5 1024:61
skinny=1:4.25 8:18 64:40.5
f16_speedup=0
bf16_speedup=0
int8_speedup=0
dispatch_ns=2500
round_trip_ns=12000
mem_gbps=9.75
readback_gbps=9.75
unified=1
threads=2
memory_bytes=25269047296
efficiency=1
"""

GPU_MODEL = b"""format=1
key=cuda:0|NVIDIA H100 80GB HBM3
name=cuda:0
kind=CUDA
source=catalog
gemm_impl=cublas
gemm=32:494.5 128:4945 512:22252.5 2048:42032.5 8192:49450
f16_speedup=14.5
bf16_speedup=14.5
int8_speedup=29
dispatch_ns=4000\r
round_trip_ns=20000
mem_gbps=2680
readback_gbps=44
unified=0
threads=0
memory_bytes=85899345920
efficiency=0.5
"""


def calib_seeds(d):
    write(d + "/seed_cpu.txt", CPU_MODEL)
    write(d + "/seed_cuda.txt", GPU_MODEL.replace(b"\r", b""))
    write(d + "/seed_cr_line.txt", GPU_MODEL)  # one CRLF line end
    write(d + "/seed_missing_readback.txt",
          b"".join(l + b"\n" for l in CPU_MODEL.split(b"\n") if not l.startswith(b"readback")))


SEP = b"\n--8<--\n"


def sysmem_seeds(d):
    fx = os.path.join(ROOT, "tests/fixtures/sysmem")

    def rd(*p):
        with open(os.path.join(fx, *p), "rb") as f:
            return f.read()

    def cg(dirname, v1=False):
        names = ["memory.max", "memory.current", "memory.limit_in_bytes", "memory.usage_in_bytes"]
        out = []
        for n in names:
            p = os.path.join(fx, dirname, n)
            out.append(open(p, "rb").read() if os.path.exists(p) else b"-")
        return out

    write(d + "/seed_meminfo", b"\x00" + rd("meminfo"))
    write(d + "/seed_meminfo_old", b"\x00" + rd("meminfo_old"))
    write(d + "/seed_statm", b"\x01\x0c" + rd("statm"))
    write(d + "/seed_status", b"\x02" + rd("status"))
    write(d + "/seed_cgroup_v2", b"\x03" + SEP.join(cg("cg2_num")))
    write(d + "/seed_cgroup_v2_max", b"\x03" + SEP.join(cg("cg2_max")))
    write(d + "/seed_cgroup_v1", b"\x03" + SEP.join(cg("cg1")))
    mountinfo = (b"22 27 0:21 / /proc rw,relatime - proc proc rw\n"
                 b"30 27 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
                 b"31 27 0:27 /process_api /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n")
    write(d + "/seed_find_v2", b"\x04" + rd("proc_cgroup_v2") + SEP + mountinfo)
    write(d + "/seed_find_v1", b"\x04" + rd("proc_cgroup_v1") + SEP + mountinfo)
    write(d + "/seed_host_nested",
          b"\x05" + SEP.join([rd("meminfo")] + cg("cg2_nested/child") + cg("cg2_nested")))
    write(d + "/seed_host_v1", b"\x05" + SEP.join([rd("meminfo_old")] + cg("cg1")))


if __name__ == "__main__":
    corpus = os.path.join(ROOT, "fuzz/corpus")
    gguf_seeds(corpus + "/gguf")
    calib_seeds(corpus + "/calib_cache")
    sysmem_seeds(corpus + "/sysmem")
