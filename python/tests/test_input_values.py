"""Values of graph inputs known before running (``input_values``, the CLI's
``--input-value``) and dims that decide an If while converting (the CLI's ``--dim``)."""
import dataclasses
import os

import numpy as np
import pytest

import tensorplan
from conftest import ROOT, assert_matches
from test_api import HEADER

IF_MODEL = os.path.join(ROOT, "fuzz", "corpus", "onnx", "test_if.onnx")


def _branch(notes):
    """Which branch the single If note says was planned."""
    assert len(notes) == 1, notes
    for b in ("then_branch", "else_branch"):
        if b + " only" in notes[0]:
            return b
    return "both" if "both branches planned" in notes[0] else notes[0]


@pytest.mark.parametrize("value, branch", [(1, "then_branch"), (0, "else_branch"),
                                           ([1], "then_branch"), (np.array([0]), "else_branch"),
                                           (True, "then_branch"),
                                           (np.array([False]), "else_branch")])
def test_the_branch_taken_is_the_one_planned(value, branch):
    e = tensorplan.estimate(IF_MODEL, budget="1GiB", input_values={"cond": value})
    assert _branch(e.notes) == branch
    assert _branch(tensorplan.estimate(IF_MODEL, budget="1GiB").notes) == "both"


@pytest.mark.parametrize("value", ["1", "0"])
def test_estimate_matches_cli(cli, value):
    py = tensorplan.estimate(IF_MODEL, budget="1GiB", input_values={"cond": int(value)})
    js = cli("estimate", IF_MODEL, "--budget", "1GiB", "--input-value", "cond=" + value)
    assert_matches(dataclasses.asdict(py), js, skip=HEADER)


def test_every_model_function_takes_them():
    vals = {"cond": 0}
    planned = {v: tensorplan.plan(IF_MODEL, input_values={"cond": v}) for v in (0, 1)}
    both = tensorplan.plan(IF_MODEL)
    assert all(p.arena_bytes < both.arena_bytes for p in planned.values())
    info = tensorplan.inspect(IF_MODEL, input_values=vals)
    assert info.shapes_inferred
    c = tensorplan.cost(IF_MODEL, devices="cpu-default", input_values=vals)
    assert c.choice == "cpu-default"
    r = tensorplan.report(IF_MODEL, budget="1GiB", devices=None, input_values=vals)
    assert _branch(r.notes) == "else_branch"
    with_both = tensorplan.report(IF_MODEL, budget="1GiB", devices=None)
    assert r.activations_bytes <= with_both.activations_bytes


def test_errors_name_the_input():
    with pytest.raises(tensorplan.Error) as e:
        tensorplan.estimate(IF_MODEL, budget="1GiB", input_values={"nope": 1})
    assert e.value.code == "TP_ERR_NOT_FOUND" and "nope" in str(e.value)
    with pytest.raises(tensorplan.Error) as e:
        tensorplan.estimate(IF_MODEL, budget="1GiB", input_values={"cond": [1, 2]})
    assert e.value.code == "TP_ERR_SHAPE"
    with pytest.raises(ValueError, match="not finite"):
        tensorplan.estimate(IF_MODEL, input_values={"cond": float("nan")})
    with pytest.raises(ValueError, match="at least one value"):
        tensorplan.estimate(IF_MODEL, input_values={"cond": []})
    with pytest.raises(TypeError, match="numbers, not str"):
        tensorplan.estimate(IF_MODEL, input_values={"cond": "1"})
    with pytest.raises(TypeError, match="a mapping"):
        tensorplan.estimate(IF_MODEL, input_values=[("cond", 1)])
    with pytest.raises(ValueError, match="1 to 1024 values"):
        tensorplan.estimate(IF_MODEL, input_values={"cond": list(range(1025))})


@pytest.mark.parametrize("name, n, branch", [("if_dim_big", 600, "then_branch"),
                                             ("if_dim_small", 100, "else_branch")])
def test_dims_decide_an_if_on_a_dim(cli, name, n, branch):
    path = os.path.join(ROOT, ".fixtures", "onnx2", "models", name + ".onnx")
    if not os.path.exists(path):
        pytest.skip(f"{path} is not there (scripts/fixtures.sh exports it)")
    e = tensorplan.estimate(path, dims={"b": 1, "n": n}, budget="1GiB")
    assert any(branch + " only" in t for t in e.notes), e.notes
    js = cli("estimate", path, "--budget", "1GiB", "--dim", "b=1", "--dim", f"n={n}")
    assert_matches(dataclasses.asdict(e), js, skip=HEADER)
