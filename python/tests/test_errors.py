"""One exception type carrying the C library's code, message, node and file offset."""
import pickle

import pytest

import tensorplan
from conftest import fixture_model


def test_missing_file(tmp_path):
    with pytest.raises(tensorplan.Error) as ei:
        tensorplan.estimate(str(tmp_path / "missing.onnx"))
    e = ei.value
    assert e.code == "TP_ERR_NOT_FOUND" and "missing.onnx" in e.message
    assert e.node is None and e.offset is None
    assert str(e).endswith("(TP_ERR_NOT_FOUND)")


def test_parse_error_has_the_offset(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x0a\xff\xff\xff\xff\x0f")
    for fn in (tensorplan.inspect, tensorplan.estimate, tensorplan.plan):
        with pytest.raises(tensorplan.Error) as ei:
            fn(str(bad))
        assert ei.value.code == "TP_ERR_PARSE" and isinstance(ei.value.offset, int)
    with pytest.raises(tensorplan.Error) as ei:
        tensorplan.estimate(b"junk")
    assert ei.value.code == "TP_ERR_PARSE"


def test_error_at_a_node(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    w = helper.make_tensor("w", TensorProto.FLOAT, [4, 5], [0.0] * 20)
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "g",
                          [x], [y], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(tensorplan.Error) as ei:
        tensorplan.estimate(m)
    e = ei.value
    assert e.code == "TP_ERR_SHAPE" and "node 'mm' (MatMul" in e.message, e
    assert isinstance(e.offset, int)  # where the node is in the serialized model


def test_unbound_and_unknown_dims(model_path):
    path = fixture_model("bert_base")
    with pytest.raises(tensorplan.Error) as ei:
        tensorplan.estimate(path, dims={"batch": 1})
    assert ei.value.code == "TP_ERR_UNBOUND" and "seq" in ei.value.message
    with pytest.raises(tensorplan.Error) as ei:
        tensorplan.estimate(model_path, dims={"nosuch": 2})
    assert ei.value.code == "TP_ERR_NOT_FOUND" and "nosuch" in ei.value.message
    with pytest.raises(tensorplan.Error) as ei:
        tensorplan.fit(model_path, "nosuch", "1GiB")
    assert ei.value.code == "TP_ERR_NOT_FOUND"


def test_bad_options(model_path):
    with pytest.raises(tensorplan.Error) as ei:
        tensorplan.alloc([(10, 3, 1)])
    assert ei.value.code == "TP_ERR_INVALID"
    for kw in ({"algo": "nosuch"},):
        with pytest.raises(tensorplan.Error):
            tensorplan.alloc([(10, 0, 1)], **kw)
        with pytest.raises(tensorplan.Error):
            tensorplan.plan(model_path, **kw)
    with pytest.raises(tensorplan.Error) as ei:
        tensorplan.estimate(model_path, runtime="tensorrt")
    assert "onnxruntime" in ei.value.message
    with pytest.raises(ValueError):
        tensorplan.estimate(model_path, runtime="onnxruntime",
                            ort={"arena_extend_strategy": "doubling"})
    with pytest.raises(tensorplan.Error):
        tensorplan.cost(model_path, devices=["h100-sxm"], dtype="f13")
    with pytest.raises(TypeError):
        tensorplan.estimate(model_path, dims={"batch": "8"})
    with pytest.raises(TypeError):
        tensorplan.alloc([(10, 0)])
    with pytest.raises(ValueError):
        tensorplan.estimate(model_path, budget="lots")
    with pytest.raises(ValueError):
        tensorplan.plan(model_path, time_limit=-1)


def test_error_pickles():
    e = tensorplan.Error("TP_ERR_PARSE", "bad byte at offset 3", 7, 3)
    e2 = pickle.loads(pickle.dumps(e))
    assert (e2.code, e2.message, e2.node, e2.offset) == ("TP_ERR_PARSE", "bad byte at offset 3", 7, 3)
