"""The three kinds of model argument, and ModelProtos serialized without their weights."""
import os
import pathlib

import pytest

import tensorplan
from conftest import fixture_model
from tensorplan import _model


def test_path_pathlike_and_bytes_agree(model_path):
    data = open(model_path, "rb").read()
    want = tensorplan.estimate(model_path, dims={"batch": 2}, budget=0)
    for m in (pathlib.Path(model_path), data, bytearray(data), memoryview(data)):
        got = tensorplan.estimate(m, dims={"batch": 2}, budget=0)
        assert (got.peak_bytes, got.weights_bytes) == (want.peak_bytes, want.weights_bytes)
    assert tensorplan.estimate(data, budget=0).model == "<bytes>"
    assert tensorplan.inspect(data).file_bytes == len(data)


def test_modelproto(model_path):
    onnx = pytest.importorskip("onnx")
    m = onnx.load(model_path, load_external_data=False)  # its weights are not shipped
    got = tensorplan.estimate(m, dims={"batch": 1}, budget=0)
    assert got.peak_bytes == tensorplan.estimate(model_path, dims={"batch": 1}, budget=0).peak_bytes
    assert got.model == "<onnx.ModelProto torch_jit>"
    assert tensorplan.plan(m, algo="greedy").nodes == 277
    assert tensorplan.inspect(m).n_nodes == 209


@pytest.mark.parametrize("name,dims", [("bert_base", {"batch": 2, "seq": 128}),
                                       ("resnet50", {"batch": 2})])
def test_modelproto_weights_are_not_serialized(name, dims):
    onnx = pytest.importorskip("onnx")
    path = fixture_model(name)
    want = tensorplan.estimate(path, dims=dims, budget=0)
    # weights in memory: serialized as dims-only references, the caller's object untouched
    m = onnx.load(path)
    size = m.ByteSize()
    src, _ = _model.model_source(m)
    assert len(src) < size / 50, (len(src), size)  # measured: 0.11 % for bert_base
    assert m.ByteSize() == size
    got = tensorplan.estimate(m, dims=dims, budget=0)
    assert (got.peak_bytes, got.weights_bytes, got.activations_bytes) == \
        (want.peak_bytes, want.weights_bytes, want.activations_bytes)
    # weights left external (load_external_data=False): they stay external
    ext = onnx.load(path, load_external_data=False)
    got = tensorplan.estimate(ext, dims=dims, budget=0)
    assert got.peak_bytes == want.peak_bytes


def test_not_a_model():
    for bad in (12345, None, [1, 2], b"junk".decode()):
        with pytest.raises((TypeError, tensorplan.Error)):
            tensorplan.estimate(bad, budget=0)
    with pytest.raises(TypeError):
        tensorplan.estimate(os.fsencode("/x.onnx").decode().encode() and 3.5, budget=0)
