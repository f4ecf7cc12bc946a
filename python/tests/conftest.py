"""Shared fixtures: the bundled model, the exported models in .fixtures/models (skipped
where absent), the CLI (the same figures must come out of both), and an environment
without TENSORPLAN_* settings and with a private calibration cache."""
import json
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODEL = os.path.join(ROOT, "examples", "models", "mobilenet_v2.onnx")
FIXTURES = os.path.join(ROOT, ".fixtures", "models")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for k in list(os.environ):
        if k.startswith("TENSORPLAN_"):
            monkeypatch.delenv(k)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture
def model_path():
    return MODEL


@pytest.fixture
def root():
    return ROOT


def fixture_model(name):
    path = os.path.join(FIXTURES, name + ".onnx")
    if not os.path.exists(path):
        pytest.skip(f"{path} is not there (scripts/fixtures.sh exports it)")
    return path


@pytest.fixture
def cli():
    """Run `tensorplan <args> --json --quiet` and return the parsed document."""
    exe = os.environ.get("TENSORPLAN_CLI", os.path.join(ROOT, "build", "tensorplan"))
    if not os.path.exists(exe):
        pytest.skip(f"no CLI at {exe} (set TENSORPLAN_CLI)")

    def run(*args):
        r = subprocess.run([exe, *args, "--json", "--quiet"], capture_output=True, text=True,
                           check=False, env={k: v for k, v in os.environ.items()
                                             if not k.startswith("TENSORPLAN_")})
        assert r.stdout, r.stderr
        return json.loads(r.stdout)
    return run


def assert_matches(py, js, skip=(), path=""):
    """Every key of the CLI's JSON document js has the same value in py (a dict from
    dataclasses.asdict); py may have more keys."""
    for k, v in js.items():
        if k in skip:
            continue
        assert k in py, f"{path}{k} missing"
        if isinstance(v, dict):
            assert_matches(py[k], v, skip, f"{path}{k}.")
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            assert len(py[k]) == len(v), f"{path}{k}: {len(py[k])} != {len(v)}"
            for i, (a, b) in enumerate(zip(py[k], v)):
                assert_matches(a, b, skip, f"{path}{k}[{i}].")
        elif isinstance(v, list):
            assert list(py[k]) == v, f"{path}{k}: {py[k]!r} != {v!r}"
        else:
            assert py[k] == v, f"{path}{k}: {py[k]!r} != {v!r}"
