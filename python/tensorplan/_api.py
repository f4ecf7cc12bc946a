"""tensorplan's functions: each loads the model, calls the C library (the GIL released
while it works) and returns a dataclass of ._types."""
from __future__ import annotations

import dataclasses
import math
import numbers
import os
from typing import Any, Iterable, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._model import ModelLike, model_source
from ._types import (Alloc, Cost, DeviceCost, Estimate, Fit, ModelInfo, OrtOptions, Plan,
                     Report, parse_size)

Dims = Optional[Mapping[str, int]]
Size = Union[int, str]
Number = Union[int, float]
InputValues = Optional[Mapping[str, Union[Number, Sequence[Number], Any]]]


def _dims(dims: Dims) -> dict:
    if dims is None:
        return {}
    if not isinstance(dims, Mapping):
        raise TypeError(f"dims: a mapping such as {{'batch': 8}}, not {type(dims).__name__}")
    out = {}
    for k, v in dims.items():
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"dims[{k!r}]: an int, not {type(v).__name__}")
        out[str(k)] = v
    return out


def _number(name: str, x: Any) -> Number:
    if isinstance(x, numbers.Integral):  # bool included: a bool input's True is 1
        return int(x)
    if isinstance(x, numbers.Real):
        if not math.isfinite(float(x)):
            raise ValueError(f"input_values[{name!r}]: {x!r} is not finite")
        return float(x)
    raise TypeError(f"input_values[{name!r}]: numbers, not {type(x).__name__}")


def _flat(v: Any) -> list:
    """v's values in order: a number, a (nested) sequence, or a NumPy array or scalar."""
    v = v.tolist() if callable(getattr(v, "tolist", None)) else v
    if isinstance(v, (list, tuple)):
        return [x for item in v for x in _flat(item)]
    return [v]


def _load(dims: Dims, input_values: InputValues = None) -> tuple:
    """What the native loader takes: the dims and the known values of graph inputs, each
    input's values as a flat list of ints (every value integral) or of floats."""
    if input_values is None:
        return (_dims(dims), None)
    if not isinstance(input_values, Mapping):
        raise TypeError("input_values: a mapping such as {'sr': 16000}, not "
                        f"{type(input_values).__name__}")
    values = {}
    for k, v in input_values.items():
        name = str(k)
        row = [_number(name, x) for x in _flat(v)]
        if not row:
            raise ValueError(f"input_values[{name!r}]: at least one value")
        if not all(isinstance(x, int) for x in row):
            row = [float(x) for x in row]
        values[name] = row
    return (_dims(dims), values)


def _seconds(t: Optional[float]) -> float:
    if t is None:
        return -1.0
    if not t >= 0:
        raise ValueError(f"time_limit: seconds >= 0, got {t!r}")
    return float(t)


def _budget(budget: Optional[Size]) -> Optional[int]:
    return None if budget is None else parse_size(budget)


def _with_model(d: dict, label: str) -> dict:
    d["model"] = label
    return d


def estimate(model: ModelLike, dims: Dims = None, budget: Optional[Size] = None,
             runtime: str = "plan", *, ort: Union[OrtOptions, Mapping[str, Any], None] = None,
             algo: Optional[str] = None, alignment: int = 0,
             time_limit: Optional[float] = None, input_values: InputValues = None) -> Estimate:
    """Peak memory (weights + activations + inputs) of one forward pass, and whether it
    fits a budget.

    ``dims`` binds symbolic dims (``{"batch": 8, "seq": 512}``); batch-like and unnamed
    input dims left unbound become 1 (listed in ``default_bindings``). ``budget``
    ("8GiB" or bytes) defaults to this machine's soft budget (0.80 x available memory;
    ``budget_source`` says which). ``runtime`` is ``"plan"`` (the best arena tensorplan
    finds) or ``"onnxruntime"`` (what onnxruntime's CPU execution provider takes, an
    upper estimate; ``ort`` sets its session options); the runtime's peak is what must
    fit. ``algo`` picks the activation planner (``"greedy"``, ``"bestfit"``, ``"exact"``,
    ``"auto"``, ``"noreuse"``), ``alignment`` the arena alignment in bytes and
    ``time_limit`` the search budget in seconds of ``"exact"`` and ``"auto"``.
    ``input_values`` gives graph inputs' values known before running (``{"sr": 16000}``,
    a number, a sequence or a NumPy array per input; as the CLI's ``--input-value``): an If
    on such an input is converted for it (the branch taken is the one planned and priced)
    and a Reshape or Resize reading it gets static shapes. Every function that loads a model
    takes ``input_values``; ``dims`` also decide an If on a dim, as the CLI's ``--dim``.

    Raises :class:`tensorplan.Error` for a bad model, an unbound dim or a bad option."""
    src, label = model_source(model)
    if isinstance(ort, OrtOptions):
        ort = dataclasses.asdict(ort)
    d = _native.estimate(src, _load(dims, input_values), _budget(budget), algo, int(alignment),
                         str(runtime), None if ort is None else dict(ort), _seconds(time_limit))
    return Estimate._from(_with_model(d, label))


def plan(model: ModelLike, dims: Dims = None, *, algo: Optional[str] = None,
         alignment: int = 0, time_limit: Optional[float] = None,
         input_values: InputValues = None) -> Plan:
    """Place every tensor of the model (weights and inputs included, as a runtime arena
    would) in one arena: each :class:`Slot` has its offset, size and live steps.

    As ``tensorplan plan``: by default the best heuristic, then an exact search of up to
    ``time_limit`` seconds (default 0.25) that stops early at the lower bound or a proof
    (``optimal``). ``algo``: ``"auto"``, ``"greedy"``, ``"bestfit"``, ``"exact"``,
    ``"noreuse"``."""
    src, label = model_source(model)
    d = _native.plan(src, _load(dims, input_values), algo, int(alignment), _seconds(time_limit))
    return Plan._from(_with_model(d, label))


def fit(model: ModelLike, dim: str, budget: Optional[Size] = None, dims: Dims = None, *,
        min_value: int = 1, max_value: int = 0, algo: Optional[str] = None,
        alignment: int = 0, input_values: InputValues = None) -> Fit:
    """The largest value of ``dim`` (``"batch"``, ``"seq"``, ...) whose peak fits
    ``budget`` (default: this machine's soft budget), searched over
    ``min_value..max_value`` (0 = 2^40) with O(log value) plans. Other symbolic dims
    are bound by ``dims``. ``fits`` is False (not an exception) when even ``min_value``
    does not fit."""
    src, label = model_source(model)
    d = _native.fit(src, _load(dims, input_values), str(dim), _budget(budget), int(min_value),
                    int(max_value), algo, int(alignment))
    return Fit._from(_with_model(d, label))


def _rows(buffers: Any) -> Sequence[Tuple[int, int, int]]:
    names = getattr(getattr(buffers, "dtype", None), "names", None)
    if names:  # a NumPy structured array with size, birth, death
        missing = {"size", "birth", "death"} - set(names)
        if missing:
            raise ValueError(f"buffers: the structured array lacks {sorted(missing)}")
        return list(zip(buffers["size"].tolist(), buffers["birth"].tolist(),
                        buffers["death"].tolist()))
    return [tuple(b) for b in buffers]  # type: ignore[misc]


def alloc(buffers: Union[Iterable[Tuple[int, int, int]], Any], *, algo: Optional[str] = None,
          alignment: int = 0) -> Alloc:
    """Offsets for buffers that each live over steps ``birth..death`` (inclusive), given
    as ``(size, birth, death)`` tuples or a NumPy structured array with fields ``size``,
    ``birth`` and ``death``: no two buffers live at the same step overlap. ``algo`` is
    ``"greedy"``, ``"bestfit"``, ``"exact"``, ``"auto"`` (exact where it can prove
    optimality) or ``"noreuse"``."""
    d = _native.alloc(_rows(buffers), algo, int(alignment))
    return Alloc._from(d)


def inspect(model: ModelLike, dims: Dims = None, *,
            input_values: InputValues = None) -> ModelInfo:
    """What is in an ONNX file: producer, opsets, inputs and outputs (with their sizes
    once shapes are inferred and dims bound), op histogram, parameters."""
    src, label = model_source(model)
    return ModelInfo._from(_with_model(_native.inspect(src, _load(dims, input_values)), label))


def _devices(devices: Union[str, Sequence[str]]) -> list:
    if isinstance(devices, str):
        return [s.strip() for s in devices.split(",") if s.strip()]
    return [str(s) for s in devices]


def cost(model: ModelLike, dims: Dims = None,
         devices: Union[str, Sequence[str]] = ("cpu", "cuda"), *, dtype: Optional[str] = None,
         quick: bool = False, input_values: InputValues = None) -> Cost:
    """Predicted latency of one forward pass on each device, and the device to use.

    ``devices``: ``"cpu"`` (this machine, calibrated once and cached; ``quick=True``
    measures small shapes only), ``"cuda"`` (the first CUDA GPU), ``"<kind>-default"``
    (built-in figures), a catalog device (``"h100-sxm"``, ``"rpi5"``, ...; see
    data/devices/catalog.csv) or ``"all"``. Unavailable devices are listed with their
    ``reason``. ``dtype`` is the GEMM precision on catalog devices (default f32)."""
    src, label = model_source(model)
    d = _native.cost(src, _load(dims, input_values), _devices(devices), dtype, bool(quick))
    ok, choice = d.pop("choice")
    d["choice" if ok else "choice_error"] = choice
    return Cost(model=label, devices=tuple(DeviceCost._from(r) for r in d["devices"]),
                choice=d.get("choice"), choice_error=d.get("choice_error"),
                default_bindings=tuple(d["default_bindings"]))


def report(model: ModelLike, dims: Dims = None, budget: Optional[Size] = None, *,
           devices: Union[str, Sequence[str], None] = ("cpu", "cuda"), top: int = 8,
           html: Union[str, "os.PathLike[str]", None] = None,
           svg: Union[str, "os.PathLike[str]", None] = None, dtype: Optional[str] = None,
           quick: bool = False, input_values: InputValues = None) -> Report:
    """Everything ``tensorplan report`` shows: memory (weights, activations with and
    without reuse, lower bound, inputs, peak against ``budget``, what onnxruntime would
    take), the ``top`` largest activations, the peak step, the IO profile, predicted
    latency on ``devices`` (None: no prediction) and the device chosen.

    ``html=path`` writes the self-contained HTML page (memory map, tables, details on
    hover), ``svg=path`` the memory map alone."""
    if not 1 <= int(top) <= 64:
        raise ValueError("top: 1..64")
    src, label = model_source(model)
    want_svg = html is not None or svg is not None
    d = _native.report(src, _load(dims, input_values), _budget(budget),
                       None if devices is None else _devices(devices), int(top), want_svg,
                       bool(quick), dtype)
    ok_choice = d.pop("choice")
    d["choice"] = ok_choice[1] if ok_choice and ok_choice[0] else None
    r = Report._from(_with_model(d, label))
    if svg is not None:
        with open(svg, "w", encoding="utf-8") as f:
            f.write(r.svg or "")
    if html is not None:
        with open(html, "w", encoding="utf-8") as f:
            f.write(r.to_html())
    return r


def version() -> str:
    """The C library's version (as ``tensorplan version``)."""
    return _native.version()
