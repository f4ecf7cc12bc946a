"""tensorplan: will it fit? Memory plans, estimates and latency for ML models, before a
single weight is loaded.

    >>> import tensorplan
    >>> e = tensorplan.estimate("model.onnx", dims={"batch": 8}, budget="4GiB")
    >>> e.peak_bytes, e.fits          # ints in bytes, a bool
    >>> print(e)                      # human text only from str()

Every function takes the model as a path, the file's bytes, or an ``onnx.ModelProto``
(its large weights are not copied: sizes come from the initializers' dims). Results are
frozen dataclasses whose fields are the terms of the CLI's JSON (docs/json.md);
``dataclasses.asdict(result)`` gives the plain data. Errors from the C library raise
:class:`Error` with its ``code``, ``message``, ``node`` and file ``offset``. The GIL is
released while the library loads, plans, estimates, predicts and allocates, so other
Python threads keep running. See docs/python.md.
"""
from __future__ import annotations

from . import _native
from ._api import alloc, cost, estimate, fit, inspect, plan, report, version
from ._model import ModelLike
from ._types import (Alloc, BoundedDim, Buffer, Cost, DeviceCost, DeviceModel, Error,
                     Estimate, Fit, GemmPoint, IoProfile, ModelInfo, OnnxruntimeFigure, Opset,
                     OrtOptions, Params, Peak, Plan, ReadPoint, Report, Runtime, RuntimeTerms,
                     SkinnyPoint, Slot, ValueInfo, format_bytes, parse_size)

_native._set_error_class(Error)

__version__ = version()

__all__ = [
    # functions
    "estimate", "plan", "fit", "alloc", "inspect", "cost", "report", "version",
    "parse_size", "format_bytes",
    # results and errors
    "Error", "Estimate", "Runtime", "RuntimeTerms", "OrtOptions", "BoundedDim", "Plan",
    "Slot", "Fit", "Alloc", "ModelInfo", "ValueInfo", "Opset", "Params", "Cost",
    "DeviceCost", "DeviceModel", "GemmPoint", "SkinnyPoint", "ReadPoint", "Report",
    "OnnxruntimeFigure", "Buffer", "Peak", "IoProfile", "ModelLike",
]
