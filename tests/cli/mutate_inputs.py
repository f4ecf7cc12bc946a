"""Mutated-input suite for the CLI: takes seed files of each format the tool reads (ONNX,
GGUF, safetensors, CSV), derives deterministic mutants from them (byte flips, truncations,
inserted and repeated chunks, length fields set to huge values, size fields zeroed), runs
the command that reads each mutant under a time limit and an address-space limit, and
checks what a user would see:
  - the exit code is 0, 1, 2 or 3 (never a signal, never a sanitizer report, never a hang);
  - an error (exit 1 or 2) ends in a message line that starts with "tensorplan";
  - stderr holds no raw control byte (names from the file are escaped);
  - the run stays within the time limit.
usage: /usr/bin/python3 tests/cli/mutate_inputs.py TENSORPLAN OUT_DIR [MUTANTS_PER_SEED]"""
import os
import random
import resource
import struct
import subprocess
import sys
import time

TP, OUT = sys.argv[1], sys.argv[2]
PER_SEED = int(sys.argv[3]) if len(sys.argv) > 3 else 6
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIME_LIMIT = 20.0
# sanitizer builds reserve terabytes of shadow memory: no address-space limit there
with open(TP, "rb") as f:
    SANITIZED = b"AddressSanitizer" in f.read()
AS_LIMIT = None if SANITIZED else 4 << 30
rng = random.Random(20261124)


def corpus_seeds(name, count):
    d = os.path.join(ROOT, "fuzz", "corpus", name)
    files = sorted(os.listdir(d)) if os.path.isdir(d) else []
    picked = [os.path.join(d, f) for f in rng.sample(files, min(count, len(files)))]
    return [open(p, "rb").read() for p in picked]


def tiny_gguf():
    path = os.path.join(OUT, "seed.gguf")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests/cli/make_tiny_gguf.py"), path],
                   check=True)
    return open(path, "rb").read()


def tiny_safetensors():
    header = b'{"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},' \
             b'"__metadata__":{"format":"pt"}}'
    header += b" " * (-len(header) % 8)
    return struct.pack("<Q", len(header)) + header + bytes(24)


def mutate(data, kind):
    b = bytearray(data)
    n = len(b)
    if n == 0:
        return bytes(b"\0")
    at = rng.randrange(n)
    if kind == "flip":
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(n)] ^= 1 << rng.randrange(8)
    elif kind == "truncate":
        del b[at:]
    elif kind == "insert":
        b[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
    elif kind == "repeat":
        chunk = b[at:at + rng.randint(1, 256)]
        b[at:at] = chunk * rng.randint(2, 64)
    elif kind == "huge":  # a length, count or offset field set near 2^64 or 2^32
        v = rng.choice([0xFFFFFFFFFFFFFFFF, 0x7FFFFFFFFFFFFFFF, 0xFFFFFFFF, 1 << 40])
        if at + 8 <= n:
            b[at:at + 8] = struct.pack("<Q", v)
        if n > 10:  # and a protobuf-style varint length
            p = rng.randrange(n - 10)
            b[p:p + 10] = b"\xff" * 9 + b"\x01"
    elif kind == "zero":
        for _ in range(rng.randint(1, 4)):
            p = rng.randrange(n)
            b[p:p + 8] = bytes(min(8, n - p))
    return bytes(b)


def limits():
    if AS_LIMIT:
        resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def check(path, argv, label):
    t0 = time.monotonic()
    try:
        p = subprocess.run([TP] + argv + [path], stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=TIME_LIMIT, preexec_fn=limits)
    except subprocess.TimeoutExpired:
        return f"{label}: timed out after {TIME_LIMIT:.0f} s"
    dt = time.monotonic() - t0
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode < 0:
        return f"{label}: killed by signal {-p.returncode}: {err[-300:]}"
    if p.returncode not in (0, 1, 2, 3):
        return f"{label}: exit {p.returncode}: {err[-300:]}"
    if "Sanitizer" in err or "runtime error:" in err:
        return f"{label}: sanitizer report: {err[-600:]}"
    if any(c < 32 and c not in (9, 10) for c in p.stderr):
        return f"{label}: raw control byte on stderr: {p.stderr[-200:]!r}"
    if p.returncode in (1, 2):
        lines = [ln for ln in err.splitlines() if ln and not ln.startswith("(see ")]
        if not lines or not lines[-1].startswith("tensorplan"):
            return f"{label}: exit {p.returncode} without a tensorplan message: {err[-300:]!r}"
    return None if dt < TIME_LIMIT else f"{label}: took {dt:.1f} s"


def main():
    os.makedirs(OUT, exist_ok=True)
    mobilenet = open(os.path.join(ROOT, "examples/models/mobilenet_v2.onnx"), "rb").read()
    formats = [  # (name, suffix, seeds, commands)
        ("onnx", ".onnx", [mobilenet] + corpus_seeds("onnx", 7), [["inspect"], ["plan"]]),
        ("gguf", ".gguf", [tiny_gguf()] + corpus_seeds("gguf", 7), [["estimate", "--ctx", "512"]]),
        ("safetensors", ".safetensors", [tiny_safetensors()], [["inspect"], ["estimate"]]),
        ("csv", ".csv", corpus_seeds("csv", 8), [["alloc"]]),
    ]
    kinds = ["flip", "truncate", "insert", "repeat", "huge", "zero"]
    runs = fails = 0
    for name, suffix, seeds, cmds in formats:
        for si, seed in enumerate(seeds):
            for k in range(PER_SEED):
                kind = kinds[k % len(kinds)]
                path = os.path.join(OUT, f"{name}_{si}_{k}_{kind}{suffix}")
                with open(path, "wb") as f:
                    f.write(mutate(seed, kind))
                kept = False
                for argv in cmds:
                    runs += 1
                    problem = check(path, argv, f"{' '.join(argv)} {os.path.basename(path)}")
                    if problem:
                        fails += 1
                        kept = True
                        print("FAIL", problem)
                if not kept:
                    os.remove(path)
    print(f"{runs} mutant runs ({'sanitizer build' if SANITIZED else '4 GiB address space'}, "
          f"{TIME_LIMIT:.0f} s each at most); failing mutants kept in {OUT}")
    print(f"{runs - fails} passed, {fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
