"""Every function against the CLI: the same terms and the same figures."""
import dataclasses
import os

import pytest

import tensorplan
from conftest import assert_matches

HEADER = ("schema", "tensorplan_version", "model", "budget_source", "memory")


@pytest.mark.parametrize("runtime", ["plan", "onnxruntime"])
def test_estimate_matches_cli(model_path, cli, runtime):
    e = tensorplan.estimate(model_path, dims={"batch": 4}, budget="64MiB", runtime=runtime)
    j = cli("estimate", model_path, "--dim", "batch=4", "--budget", "64MiB", "--runtime", runtime)
    assert_matches(dataclasses.asdict(e), j, skip=HEADER)
    assert e.peak_bytes == e.weights_bytes + e.activations_bytes + e.inputs_bytes
    assert e.inputs_bytes == 4 * 3 * 224 * 224 * 4
    assert e.fits == (e.runtime.peak_bytes <= 64 << 20)
    assert e.budget_source == "budget" and e.default_bindings == ()
    assert (e.message is None) == e.fits
    assert all(isinstance(getattr(e, f), int) for f in ("peak_bytes", "weights_bytes"))
    assert "MiB" in str(e)


def test_estimate_defaults_and_env_budget(model_path, monkeypatch):
    e = tensorplan.estimate(model_path)
    assert e.default_bindings == ("batch",) and e.inputs_bytes == 3 * 224 * 224 * 4
    assert e.budget_bytes > 0 and e.budget_source.startswith("soft budget: 0.80 x")
    monkeypatch.setenv("TENSORPLAN_MEMORY_BUDGET_BYTES", "12345")
    e = tensorplan.estimate(model_path)
    assert e.budget_bytes == 12345 and "TENSORPLAN_MEMORY_BUDGET_BYTES" in e.budget_source
    assert not e.fits and e.deficit_bytes == e.peak_bytes - 12345
    assert e.message.startswith("estimated peak")


def test_ort_options(model_path, cli):
    opts = tensorplan.OrtOptions(prepacking=False, arena_extend_strategy="same-as-requested")
    e = tensorplan.estimate(model_path, budget="1GiB", runtime="onnxruntime", ort=opts)
    assert e.runtime.options == opts
    j = cli("estimate", model_path, "--budget", "1GiB", "--runtime", "onnxruntime",
            "--ort-no-prepack", "--ort-arena-extend", "same-as-requested")
    assert_matches(dataclasses.asdict(e), j, skip=HEADER)
    assert sum(dataclasses.astuple(e.runtime.terms)) == e.runtime.peak_bytes


def test_plan_matches_cli(model_path, cli):
    p = tensorplan.plan(model_path, dims={"batch": 2}, algo="bestfit")
    j = cli("plan", model_path, "--dim", "batch=2", "--algo", "bestfit")
    py = dataclasses.asdict(p)
    assert_matches(py, j, skip=HEADER)
    assert p.nodes == 277 and len(p.slots) == 277
    assert p.arena_bytes >= p.lower_bound_bytes > 0
    # the default is the CLI's: heuristics, then a short exact search
    best = tensorplan.plan(model_path, dims={"batch": 2}, time_limit=0.05)
    assert best.algo in ("exact", "greedy", "bestfit") and best.arena_bytes <= p.arena_bytes
    assert "arena" in str(p)


def test_fit_matches_cli(model_path, cli):
    f = tensorplan.fit(model_path, "batch", "256MiB")
    j = cli("fit", model_path, "--dim", "batch", "--budget", "256MiB")
    assert_matches(dataclasses.asdict(f), j, skip=HEADER)
    assert f.fits and f.peak_bytes <= 256 << 20 < f.next_peak_bytes
    assert str(f).startswith("largest batch")
    none = tensorplan.fit(model_path, "batch", "1MiB")
    assert not none.fits and none.value == 0 and "does not fit" in none.message
    bounded = tensorplan.fit(model_path, "batch", "64GiB", max_value=16)
    assert bounded.value == 16 and bounded.at_max


def test_inspect_matches_cli(model_path, cli):
    i = tensorplan.inspect(model_path, dims={"batch": 3})
    j = cli("inspect", model_path)
    assert_matches(dataclasses.asdict(i), j, skip=HEADER + ("nodes",))
    assert i.n_nodes == 209 and i.opset == 17
    assert [v.name for v in i.inputs] == ["input"]
    assert i.inputs[0].shape == ("batch", 3, 224, 224)
    assert i.inputs[0].size_bytes == 3 * 3 * 224 * 224 * 4 and i.outputs[0].dtype == "f32"
    assert i.shapes_inferred and i.shape_error is None and i.params.count == 67


def test_alloc_tuples_and_numpy():
    bufs = [(100, 0, 1), (200, 1, 2), (50, 0, 2), (300, 3, 4)]
    a = tensorplan.alloc(bufs, algo="auto")
    assert a.buffers == 4 and len(a.offsets) == 4 and a.arena_bytes >= a.lower_bound_bytes
    assert a.ratio == pytest.approx(a.arena_bytes / a.lower_bound_bytes)
    for i, (si, bi, di) in enumerate(bufs):
        for j, (sj, bj, dj) in enumerate(bufs):
            if i < j and not (di < bj or dj < bi):
                oi, oj = a.offsets[i], a.offsets[j]
                assert oi + si <= oj or oj + sj <= oi
    np = pytest.importorskip("numpy")
    arr = np.array(bufs, dtype=[("size", "u8"), ("birth", "i8"), ("death", "i8")])
    assert tensorplan.alloc(arr, algo="auto").offsets == a.offsets
    with pytest.raises(ValueError):
        tensorplan.alloc(np.zeros(2, dtype=[("size", "u8"), ("start", "i8")]))


def test_cost_matches_cli(model_path, cli):
    c = tensorplan.cost(model_path, devices=["cpu-default", "h100-sxm", "nosuch"])
    j = cli("cost", model_path, "--devices", "cpu-default,h100-sxm,nosuch")
    assert_matches(dataclasses.asdict(c), j, skip=HEADER)
    assert [d.available for d in c.devices] == [True, True, False]
    assert "unknown device 'nosuch'" in c.devices[2].reason
    assert c.choice == "h100-sxm" and c.chosen is c.devices[1]
    assert c.devices[0].total_ns > c.devices[1].total_ns > 0
    assert "choice: h100-sxm" in str(c)


def test_cost_on_this_cpu_and_nothing_available(model_path):
    c = tensorplan.cost(model_path, devices="cpu", quick=True)  # calibrates into tmp cache
    assert c.devices[0].available and c.devices[0].model.source == "measured"
    assert c.choice == c.devices[0].model.name
    none = tensorplan.cost(model_path, devices=["nosuch"])
    assert none.choice is None and none.choice_error == "no device available"


def test_report_matches_cli_and_writes_the_same_page(model_path, cli, tmp_path):
    a_html, a_svg = tmp_path / "a.html", tmp_path / "a.svg"
    r = tensorplan.report(model_path, budget="64MiB", devices=["cpu-default", "h100-sxm"],
                          html=a_html, svg=a_svg)
    b_html, b_svg = tmp_path / "b.html", tmp_path / "b.svg"
    j = cli("report", model_path, "--budget", "64MiB", "--devices", "cpu-default,h100-sxm",
            "--html", str(b_html), "--svg", str(b_svg))
    py = dataclasses.asdict(r)
    # report lists devices as {request, available, name, source, total_ns}
    py["devices"] = [dict(d, name=d["model"]["name"], source=d["model"]["source"])
                     for d in py["devices"]]
    assert_matches(py, j, skip=HEADER)
    assert a_svg.read_bytes() == b_svg.read_bytes()
    assert a_html.read_bytes() == b_html.read_bytes()  # one page writer in the library
    page = a_html.read_text()
    assert 'id="memory-map"' in page and 'id="largest"' in page and "<script>" in page
    assert r.fits and r.peak.live_bytes <= r.activations_bytes
    assert "FITS" in str(r)
    quiet = tensorplan.report(model_path, devices=None)
    assert quiet.devices == () and quiet.choice is None and quiet.svg is None


def test_version():
    assert tensorplan.version() == tensorplan.__version__
    assert tensorplan.version().count(".") == 2


def test_sizes():
    assert tensorplan.parse_size("1.5GiB") == 3 << 29
    assert tensorplan.parse_size("512M") == 512 << 20 and tensorplan.parse_size(7) == 7
    assert tensorplan.format_bytes(1536) == "1.5 KiB" and tensorplan.format_bytes(3) == "3 B"
    for bad in ("0x10", "1.5", "-1", "8 GiBs"):
        with pytest.raises(ValueError):
            tensorplan.parse_size(bad)
    with pytest.raises(TypeError):
        tensorplan.parse_size(True)


def test_every_public_name_has_docs_and_hints():
    import inspect as pyinspect
    for name in tensorplan.__all__:
        obj = getattr(tensorplan, name)
        if name == "ModelLike":
            continue
        assert (obj.__doc__ or "").strip(), f"{name} has no docstring"
        if pyinspect.isfunction(obj):
            sig = pyinspect.signature(obj)
            assert sig.return_annotation is not sig.empty, f"{name}: no return annotation"
            for p in sig.parameters.values():
                assert p.annotation is not p.empty, f"{name}({p.name}): no annotation"
        elif dataclasses.is_dataclass(obj):
            assert all(f.type for f in dataclasses.fields(obj)), name
    assert os.path.exists(os.path.join(os.path.dirname(tensorplan.__file__), "py.typed"))
