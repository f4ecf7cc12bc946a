"""What the C library is given for a ``model`` argument: a path, the file's bytes, or an
``onnx.ModelProto`` serialized without its large weights.

tensorplan never reads weight values (sizes come from each initializer's dims and data
type); it reads the values of small constants only (shapes, axes, indices). So a
ModelProto whose initializers hold their data in memory is serialized with every
initializer larger than :data:`INLINE_BYTES` replaced by a data-less copy marked as
external data: the weights are neither copied nor serialized. Initializers that are
already external (``onnx.load(path, load_external_data=False)``) stay external."""
from __future__ import annotations

import os
from typing import Any, Tuple, Union

#: Initializers up to this many serialized bytes keep their values (shape tensors,
#: axes, small constants); larger ones are passed by dims and data type only.
INLINE_BYTES = 64 * 1024

#: The ``location`` written for weights that stay in the caller's ModelProto.
ELIDED_LOCATION = "tensorplan:elided-in-memory-weights"

ModelLike = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, Any]


def _is_model_proto(obj: Any) -> bool:
    return callable(getattr(obj, "SerializeToString", None)) and hasattr(obj, "graph")


def _copy_except(msg: Any, skip: str) -> Any:
    """A new message of msg's type with every set field of msg but ``skip``."""
    out = type(msg)()
    for fd, value in msg.ListFields():
        if fd.name == skip:
            continue
        if fd.label == fd.LABEL_REPEATED:
            getattr(out, fd.name).extend(value)
        elif fd.message_type is not None:
            getattr(out, fd.name).CopyFrom(value)
        else:
            setattr(out, fd.name, value)
    return out


def _without_weights(model: Any) -> bytes:
    """Serialize model with its large in-memory initializers replaced by dims-only
    external references (the caller's object is not changed)."""
    g = model.graph
    big = [t for t in g.initializer if t.data_location != 1 and t.ByteSize() > INLINE_BYTES]
    if not big:
        return model.SerializeToString()
    g2 = _copy_except(g, "initializer")
    for t in g.initializer:
        if t.data_location == 1 or t.ByteSize() <= INLINE_BYTES:
            g2.initializer.add().CopyFrom(t)
            continue
        t2 = g2.initializer.add()
        t2.name = t.name
        t2.data_type = t.data_type
        t2.dims.extend(t.dims)
        t2.data_location = 1  # TensorProto.EXTERNAL
        entry = t2.external_data.add()
        entry.key, entry.value = "location", ELIDED_LOCATION
    m2 = _copy_except(model, "graph")
    m2.graph.CopyFrom(g2)
    return m2.SerializeToString()


def model_source(model: ModelLike) -> Tuple[Union[str, bytes], str]:
    """(what the C library reads, a label for the result's ``model`` field)."""
    if isinstance(model, bytes):
        return model, "<bytes>"
    if isinstance(model, (bytearray, memoryview)):
        return bytes(model), "<bytes>"
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if not isinstance(path, str):
            raise TypeError("model: a str path (bytes paths are read as model bytes)")
        return path, path
    if _is_model_proto(model):
        name = getattr(model.graph, "name", "") or "onnx.ModelProto"
        return _without_weights(model), f"<onnx.ModelProto {name}>"
    raise TypeError(f"model: a path, bytes or an onnx.ModelProto, not {type(model).__name__}")
