"""tensorplan's Python API against the C library's CLI (the same figures), errors,
the GIL released during long work, and no memory growth over repeated calls."""
import json
import os
import subprocess
import sys
import threading
import time

import pytest

import tensorplan


def cli(root, *args):
    exe = os.environ.get("TENSORPLAN_CLI", os.path.join(root, "build", "tensorplan"))
    if not os.path.exists(exe):
        pytest.skip(f"no CLI at {exe} (set TENSORPLAN_CLI)")
    return json.loads(subprocess.run([exe, *args, "--json", "--quiet"], check=False,
                                     capture_output=True, text=True).stdout)


def test_estimate_matches_cli(model_path, root):
    e = tensorplan.estimate(model_path, dims={"batch": 4}, budget="64MiB")
    assert e.peak_bytes == e.activation_bytes + e.weight_bytes + e.input_bytes
    assert e.input_bytes == 4 * 3 * 224 * 224 * 4
    j = cli(root, "estimate", model_path, "--dim", "batch=4", "--budget", "64MiB", "--algo", "greedy")
    text = json.dumps(j)
    for v in (e.weight_bytes, e.input_bytes):
        assert str(v) in text
    assert e.fits == (e.peak_bytes <= 64 << 20)
    assert "peak" in str(e) and "MiB" in str(e)


def test_default_batch_binding(model_path):
    e = tensorplan.estimate(model_path)
    assert e.default_bindings == ("batch",)
    assert e.input_bytes == 3 * 224 * 224 * 4


def test_plan(model_path):
    p = tensorplan.plan(model_path, dims={"batch": 2}, algo="bestfit")
    assert p.arena_bytes >= p.lower_bound_bytes > 0
    assert len(p.slots) == 277
    # no two tensors live at the same time share bytes
    own = [s for s in p.slots if not s.view]
    own.sort(key=lambda s: s.offset)
    for a in own[:200]:
        for b in own:
            if b is a or b.offset >= a.offset + a.size_bytes or a.offset >= b.offset + b.size_bytes:
                continue
            if a.inplace or b.inplace:  # reuses a dying input's bytes at that one step
                assert a.death <= b.birth or b.death <= a.birth, (a, b)
            else:
                assert a.death < b.birth or b.death < a.birth, (a, b)
    assert p.ratio >= 1.0


def test_inputs_as_bytes_and_modelproto(model_path):
    data = open(model_path, "rb").read()
    a = tensorplan.estimate(model_path, dims={"batch": 1})
    b = tensorplan.estimate(data, dims={"batch": 1})
    assert a.peak_bytes == b.peak_bytes
    onnx = pytest.importorskip("onnx")
    m = onnx.load(model_path, load_external_data=False)
    c = tensorplan.estimate(m, dims={"batch": 1})
    assert c.peak_bytes == a.peak_bytes


def test_fit(model_path):
    f = tensorplan.fit(model_path, "batch", "256MiB")
    assert f.value >= 1
    assert f.estimate.peak_bytes <= 256 << 20 < f.next_peak_bytes
    assert str(f).startswith("largest batch")


def test_inspect(model_path):
    i = tensorplan.inspect(model_path, dims={"batch": 3})
    assert i.nodes == 277
    assert [t.name for t in i.inputs] == ["input"]
    assert i.inputs[0].size_bytes == 3 * 3 * 224 * 224 * 4
    assert i.outputs[0].dtype == "f32"


def test_alloc_tuples_and_numpy():
    bufs = [(100, 0, 1), (200, 1, 2), (50, 0, 2), (300, 3, 4)]
    a = tensorplan.alloc(bufs, algo="auto")
    assert len(a.offsets) == 4 and a.arena_bytes >= a.lower_bound_bytes
    for i, (si, bi, di) in enumerate(bufs):
        for j, (sj, bj, dj) in enumerate(bufs):
            if i < j and not (di < bj or dj < bi):
                oi, oj = a.offsets[i], a.offsets[j]
                assert oi + si <= oj or oj + sj <= oi
    np = pytest.importorskip("numpy")
    arr = np.array(bufs, dtype=[("size", "u8"), ("birth", "i8"), ("death", "i8")])
    assert tensorplan.alloc(arr, algo="auto").offsets == a.offsets


def test_errors(tmp_path):
    with pytest.raises(tensorplan.Error) as ei:
        tensorplan.estimate(str(tmp_path / "missing.onnx"))
    assert ei.value.code == "TP_ERR_NOT_FOUND" and "missing.onnx" in ei.value.message
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x0a\xff\xff\xff\xff\x0f")
    with pytest.raises(tensorplan.Error) as ei:
        tensorplan.inspect(str(bad))
    assert ei.value.code == "TP_ERR_PARSE" and ei.value.offset is not None
    with pytest.raises(tensorplan.Error) as ei:
        tensorplan.alloc([(10, 3, 1)])
    assert ei.value.code == "TP_ERR_INVALID"
    with pytest.raises(tensorplan.Error):
        tensorplan.alloc([(10, 0, 1)], algo="nosuch")
    with pytest.raises(TypeError):
        tensorplan.estimate(12345)
    with pytest.raises(ValueError):
        tensorplan.parse_size("0x10")
    assert tensorplan.parse_size("1.5GiB") == 3 << 29


def test_gil_released_during_alloc():
    # a dense trace that keeps the planner busy for a while
    n = 20000
    bufs = [((i * 7919) % 100000 + 64, i // 2, i // 2 + (i * 31) % 5000) for i in range(n)]
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    t0 = time.perf_counter()
    tensorplan.alloc(bufs, algo="greedy")
    t1 = time.perf_counter()
    stop.set()
    t.join()
    during = [x for x in ticks if t0 < x < t1]
    assert t1 - t0 > 0.05, "the plan was too quick to tell"
    # with the GIL held the ticker could not run at all while the planner worked
    assert len(during) >= 5, (len(during), t1 - t0)


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_no_leak_over_1000_calls(model_path):
    data = open(model_path, "rb").read()
    for _ in range(50):  # warm up allocator pools
        tensorplan.estimate(data)
    before = rss_kib()
    for i in range(1000):
        tensorplan.estimate(data, dims={"batch": 1 + i % 3})
        tensorplan.alloc([(64, 0, 1), (128, 1, 2)])
        try:
            tensorplan.estimate(b"junk")
        except tensorplan.Error:
            pass
    grown = rss_kib() - before
    assert grown < 8 * 1024, f"RSS grew by {grown} KiB over 1,000 calls"


def test_quickstart_example_runs(root):
    r = subprocess.run([sys.executable, os.path.join(root, "python", "examples", "quickstart.py")],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert "largest batch that fits" in r.stdout


def test_type_hints_and_docstrings():
    for name in tensorplan.__all__:
        obj = getattr(tensorplan, name)
        assert obj.__doc__ or name in ("Tensor", "ModelInfo", "Slot"), name
    assert tensorplan.estimate.__annotations__
