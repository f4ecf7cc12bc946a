"""The GIL is released while the library works, calls share no state, and repeated
calls do not grow the process (RSS)."""
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import tensorplan


def ticks_during(work):
    """Run work() while another Python thread counts; the ticks that fell inside it."""
    ticks, stop = [], threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    time.sleep(0.01)
    t0 = time.perf_counter()
    result = work()
    t1 = time.perf_counter()
    stop.set()
    t.join()
    return result, t1 - t0, len([x for x in ticks if t0 < x < t1])


def test_gil_released_during_plan(model_path):
    # the exact search runs until its time limit (it cannot prove this arena optimal)
    p, took, ticks = ticks_during(
        lambda: tensorplan.plan(model_path, dims={"batch": 8}, algo="exact", time_limit=0.5))
    assert p.nodes == 277
    assert took > 0.3, "the plan was too quick to tell"
    # with the GIL held the ticker could not run at all while the planner worked
    assert ticks >= 20, (ticks, took)


def test_gil_released_during_alloc():
    n = 20000
    bufs = [((i * 7919) % 100000 + 64, i // 2, i // 2 + (i * 31) % 5000) for i in range(n)]
    a, took, ticks = ticks_during(lambda: tensorplan.alloc(bufs, algo="greedy"))
    assert len(a.offsets) == n
    assert took < 0.05 or ticks >= 5, (ticks, took)


def test_threads_get_the_same_answers(model_path):
    data = open(model_path, "rb").read()
    want = [tensorplan.estimate(data, dims={"batch": b}, budget=0).peak_bytes for b in range(1, 9)]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda b: tensorplan.estimate(data, dims={"batch": b},
                                                          budget=0).peak_bytes, range(1, 9)))
    assert got == want


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_no_memory_growth_over_1000_calls(model_path, tmp_path):
    data = open(model_path, "rb").read()
    html = tmp_path / "r.html"

    def round_(i):
        tensorplan.estimate(data, dims={"batch": 1 + i % 3}, budget="1GiB",
                            runtime="onnxruntime" if i % 2 else "plan")
        tensorplan.plan(data, algo="greedy")
        tensorplan.inspect(data)
        tensorplan.alloc([(64, 0, 1), (128, 1, 2), (32, 0, 2)])
        tensorplan.cost(data, devices=["cpu-default", "nosuch"])
        if i % 10 == 0:
            tensorplan.fit(data, "batch", "128MiB")
            tensorplan.report(data, budget="1GiB", devices=["h100-sxm"], html=html)
        for bad in (b"junk", data[:100]):
            try:
                tensorplan.estimate(bad, budget=0)
            except tensorplan.Error:
                pass

    for i in range(50):  # warm up allocator pools and caches
        round_(i)
    before = rss_kib()
    for i in range(1000):
        round_(i)
    grown = rss_kib() - before
    assert grown < 8 * 1024, f"RSS grew by {grown} KiB over 1,000 calls"
