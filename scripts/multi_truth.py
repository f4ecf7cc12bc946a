#!/usr/bin/python3
"""Per-device truth of tensorplan's LLM placement against llama.cpp over RPC devices.

Starts ggml-rpc-server processes on 127.0.0.1 (built by scripts/fixtures-multi.sh), then for each
model and case runs .fixtures/multi/multi_probe (llama-fit-params' projection: load without
allocating, create the context, take llama.cpp's memory breakdown, in bytes) and
`tensorplan estimate MODEL --devices rpc:...,cpu --json` with the same flags, and compares each
device's model, KV (context) and compute bytes. Every server is stopped on exit.

Goal: model and KV equal to the byte; compute within 5 % and never under.
Exit status 1 when a model or KV figure differs or a compute figure is under llama.cpp's, or more
than 5 % over (with --strict-compute; otherwise the compute columns are only reported).

usage: multi_truth.py TENSORPLAN FIXDIR [--models a,b] [--cases SPEC;SPEC] [--ctx N,N] [--alloc]
  --alloc: load the models for real (llama.cpp allocates every buffer; weights sent to the
  servers) instead of llama-fit-params' projection
  a case is "rpc=N ngl=K ts=a,b nkvo ot ncpumoe=N" (space-separated, each optional but rpc)
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time

DEFAULT_CASES = [
    "rpc=2 ts=1,1",
    "rpc=2 ts=3,1",
    "rpc=2 ts=1,1 ngl=2",
    "rpc=2 ts=1,1 ngl=1",
    "rpc=2 ts=1,1 nkvo",
    "rpc=3 ts=1,1,1",
    "rpc=3 ts=1,2,1 ngl=3",
    "rpc=2 ts=1,1 ot",
    "rpc=2 ts=1,1 ncpumoe=1",
    "rpc=1 ngl=0",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Servers:
    def __init__(self, binary, n):
        self.procs, self.endpoints = [], []
        for _ in range(n):
            port = free_port()
            p = subprocess.Popen([binary, "-H", "127.0.0.1", "-p", str(port), "-t", "1"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
            self.procs.append(p)
            self.endpoints.append(f"127.0.0.1:{port}")
        for ep in self.endpoints:
            host, port = ep.split(":")
            for _ in range(200):
                try:
                    with socket.create_connection((host, int(port)), timeout=0.2):
                        break
                except OSError:
                    time.sleep(0.05)
            else:
                raise RuntimeError(f"rpc-server on {ep} did not start")

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def parse_case(spec):
    c = {"rpc": 2, "ngl": None, "ts": None, "nkvo": False, "ot": False, "ncpumoe": 0}
    for w in spec.split():
        k, _, v = w.partition("=")
        if k in ("nkvo", "ot"):
            c[k] = True
        elif k in ("rpc", "ngl", "ncpumoe"):
            c[k] = int(v)
        elif k == "ts":
            c[k] = v
        else:
            raise SystemExit(f"multi_truth: unknown case word '{w}'")
    return c


ALLOC = False


def probe(fix, model, eps, case, ctx):
    cmd = [os.path.join(fix, "multi_probe"), "-m", model, "--rpc", ",".join(eps), "-c", str(ctx),
           "-fa", "on", "-t", "1"]
    cmd += ["-ngl", str(case["ngl"] if case["ngl"] is not None else 999)]
    if case["ts"]:
        cmd += ["-ts", case["ts"]]
    if case["nkvo"]:
        cmd += ["-nkvo"]
    if case["ot"]:
        cmd += ["-ot", "exps=CPU"]
    if case["ncpumoe"]:
        cmd += ["--n-cpu-moe", str(case["ncpumoe"])]
    env = dict(os.environ, MULTI_PROBE_ALLOC="1" if ALLOC else "0")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"probe failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")
    devs, rows = {}, {}
    for line in r.stdout.splitlines():
        f = line.split()
        if f[:1] == ["device"]:
            devs[f[2]] = int(f[1])
        elif f[:1] == ["buffer"]:
            _, buft, dev, host, m, c, k = f
            idx = devs.get(dev, "host")  # CPU, CPU_REPACK, host buffers: the host row
            row = rows.setdefault(idx, {"model": 0, "kv": 0, "compute": 0, "bufts": []})
            row["model"] += int(m)
            row["kv"] += int(c)
            row["compute"] += int(k)
            row["bufts"].append(buft)
    return len(devs), rows


def predict(tp, model, eps, case, ctx):
    devs = ",".join(f"rpc:{e}:64GiB" for e in eps) + ",cpu:64GiB"
    cmd = [tp, "estimate", model, "--ctx", str(ctx), "--devices", devs, "--json"]
    if case["ngl"] is not None:
        cmd += ["--ngl", str(case["ngl"])]
    if case["ts"]:
        cmd += ["--tensor-split", case["ts"]]
    if case["nkvo"]:
        cmd += ["--no-kv-offload"]
    if case["ot"]:
        cmd += ["--override-tensor", "exps=CPU"]
    if case["ncpumoe"]:
        cmd += ["--n-cpu-moe", str(case["ncpumoe"])]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode not in (0, 3):
        raise RuntimeError(f"tensorplan failed: {' '.join(cmd)}\n{r.stderr}")
    j = json.loads(r.stdout)
    out = {}
    for i, d in enumerate(j["devices"]):
        key = "host" if d["host"] else i
        out[key] = {"model": d["model_bytes"], "kv": d["kv_bytes"], "compute": d["compute_bytes"]}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tp")
    ap.add_argument("fix")
    ap.add_argument("--models", default="llama_gqa_q8_0,mixtral_moe_q8_0")
    ap.add_argument("--cases", default=";".join(DEFAULT_CASES))
    ap.add_argument("--ctx", default="4096")
    ap.add_argument("--strict-compute", action="store_true")
    ap.add_argument("--alloc", action="store_true",
                    help="load each model for real (weights on the RPC servers) instead of "
                         "llama.cpp's projection")
    a = ap.parse_args()
    global ALLOC
    ALLOC = a.alloc
    llm = os.path.join(os.path.dirname(a.fix.rstrip("/")), "llm", "models")
    server = os.path.join(a.fix, "build", "bin", "ggml-rpc-server")
    cases = [parse_case(s) for s in a.cases.split(";") if s.strip()]
    n_srv = max(c["rpc"] for c in cases)
    srv = Servers(server, n_srv)
    signal.signal(signal.SIGTERM, lambda *_: (srv.stop(), sys.exit(1)))
    bad = 0
    worst_compute = 0.0
    under = 0
    st = {"rows": 0, "exact": 0, "in1": 0, "in5": 0}
    try:
        print(f"{'model':18} {'case':28} {'ctx':>6} {'device':6} {'model B':>10} {'d':>4} "
              f"{'KV B':>10} {'d':>4} {'compute B':>10} {'tp compute':>10} {'err %':>7}")
        for m in a.models.split(","):
            path = os.path.join(llm, m + ".gguf")
            for case in cases:
                if (case["ot"] or case["ncpumoe"]) and "moe" not in m and "deepseek2" not in m:
                    continue
                eps = srv.endpoints[:case["rpc"]]
                for ctx in (int(x) for x in a.ctx.split(",")):
                    nd, truth = probe(a.fix, path, eps, case, ctx)
                    pred = predict(a.tp, path, eps, case, ctx)
                    spec = " ".join(w for w in [
                        f"rpc={case['rpc']}",
                        f"ngl={case['ngl']}" if case["ngl"] is not None else "",
                        f"ts={case['ts']}" if case["ts"] else "",
                        "nkvo" if case["nkvo"] else "", "ot" if case["ot"] else "",
                        f"ncpumoe={case['ncpumoe']}" if case["ncpumoe"] else ""] if w)
                    for key in list(range(nd)) + ["host"]:
                        t = truth.get(key, {"model": 0, "kv": 0, "compute": 0})
                        p = pred.get(key, {"model": 0, "kv": 0, "compute": 0})
                        dm, dk = p["model"] - t["model"], p["kv"] - t["kv"]
                        err = (100.0 * (p["compute"] - t["compute"]) / t["compute"]
                               if t["compute"] else (0.0 if not p["compute"] else float("inf")))
                        if dm or dk:
                            bad += 1
                        if t["compute"] and p["compute"] < t["compute"]:
                            under += 1
                        if t["compute"]:
                            worst_compute = max(worst_compute, abs(err))
                            st["rows"] += 1
                            st["exact"] += p["compute"] == t["compute"]
                            st["in1"] += 0 <= err <= 1
                            st["in5"] += 0 <= err <= 5
                        if a.strict_compute and (err < 0 or err > 5):
                            bad += 1
                        name = f"rpc{key}" if key != "host" else "host"
                        print(f"{m:18} {spec:28} {ctx:6} {name:6} {t['model']:10} {dm:4} "
                              f"{t['kv']:10} {dk:4} {t['compute']:10} {p['compute']:10} "
                              f"{err:7.1f}")
    finally:
        srv.stop()
    print(f"model/KV rows off: {bad}; compute rows under llama.cpp: {under}; "
          f"largest |compute error|: {worst_compute:.1f} %")
    print(f"compute: {st['rows']} rows with a compute buffer; equal to the byte {st['exact']}, "
          f"within 1 % (never under) {st['in1']}, within 5 % {st['in5']}")
    return 1 if bad or under else 0


if __name__ == "__main__":
    sys.exit(main())
