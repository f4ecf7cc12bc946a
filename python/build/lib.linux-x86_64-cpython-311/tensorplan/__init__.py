"""tensorplan: will it fit? Memory plans and estimates for ML models, before loading weights.

    >>> import tensorplan
    >>> e = tensorplan.estimate("model.onnx", dims={"batch": 8}, budget="4GiB")
    >>> e.peak_bytes, e.fits
    >>> print(e)

Every function takes the model as a path, the file's bytes, or an ``onnx.ModelProto``
(serialized once; external weights stay where they are: sizes come from the
initializers' dims, never from their bytes). Sizes are ints in bytes; human strings only
come from ``str()``. Errors raise :class:`Error` with the C library's code, message,
node and file offset. The GIL is released while the library loads, plans and
allocates, so other Python threads keep running.
"""
from __future__ import annotations

import dataclasses
import os
import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native

__all__ = [
    "Error", "Estimate", "Plan", "Slot", "Fit", "Alloc", "ModelInfo", "Tensor",
    "estimate", "plan", "fit", "alloc", "inspect", "parse_size", "format_bytes", "version",
]

ModelLike = Union[str, "os.PathLike[str]", bytes, Any]


class Error(Exception):
    """A failure reported by the C library.

    Attributes: ``code`` (the status name, e.g. ``"TP_ERR_NOT_FOUND"``), ``message``
    (with file offset, node and op where the library knows them), ``node`` (node id or
    -1) and ``offset`` (byte offset in the model file, or None).
    """

    def __init__(self, code: str, message: str, node: int = -1, offset: int = 2**64 - 1):
        super().__init__(f"{message} ({code})")
        self.code = code
        self.message = message
        self.node = node
        self.offset: Optional[int] = None if offset == 2**64 - 1 else offset


_native._set_error_class(Error)

_UNITS = {"": 0, "b": 0, "k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20,
          "g": 30, "gb": 30, "gib": 30, "t": 40, "tb": 40, "tib": 40, "p": 50, "pib": 50}


def parse_size(size: Union[int, str]) -> int:
    """Bytes from an int or a string such as ``"512MiB"``, ``"8GiB"``, ``"1.5G"``
    (binary units, as the CLI reads them)."""
    if isinstance(size, bool):
        raise TypeError("size: int or str, not bool")
    if isinstance(size, int):
        if size < 0:
            raise ValueError(f"size must be >= 0, got {size}")
        return size
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", str(size))
    if not m or m.group(2).lower() not in _UNITS:
        raise ValueError(f"not a size: {size!r} (examples: 4096, 512MiB, 8GiB, 1.5G)")
    value = float(m.group(1)) * (1 << _UNITS[m.group(2).lower()])
    if value != int(value):
        raise ValueError(f"{size!r} is not a whole number of bytes")
    return int(value)


def format_bytes(n: int) -> str:
    """``"1.5 GiB"`` style (binary units)."""
    v, units = float(n), ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    u = 0
    while v >= 1024 and u < len(units) - 1:
        v /= 1024
        u += 1
    return f"{int(v)} B" if u == 0 else f"{v:.1f} {units[u]}"


def _source(model: ModelLike) -> Union[str, bytes]:
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model)
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model)
    serialize = getattr(model, "SerializeToString", None)  # onnx.ModelProto
    if callable(serialize):
        return serialize()
    raise TypeError(f"model: a path, bytes or an onnx.ModelProto, not {type(model).__name__}")


def _dims(dims: Optional[Mapping[str, int]]) -> Dict[str, int]:
    return {str(k): int(v) for k, v in (dims or {}).items()}


@dataclasses.dataclass(frozen=True)
class Estimate:
    """Peak memory of one forward pass (the terms of ``tensorplan estimate --json``)."""
    activation_bytes: int
    weight_bytes: int
    input_bytes: int
    peak_bytes: int
    budget_bytes: Optional[int] = None
    default_bindings: Tuple[str, ...] = ()

    @property
    def fits(self) -> Optional[bool]:
        """True/False against the budget given, None without one."""
        return None if self.budget_bytes is None else self.peak_bytes <= self.budget_bytes

    @property
    def deficit_bytes(self) -> int:
        """How far over the budget (0 when it fits or without a budget)."""
        if self.budget_bytes is None:
            return 0
        return max(0, self.peak_bytes - self.budget_bytes)

    def __str__(self) -> str:
        s = (f"peak {format_bytes(self.peak_bytes)} (activations "
             f"{format_bytes(self.activation_bytes)}, weights {format_bytes(self.weight_bytes)}, "
             f"inputs {format_bytes(self.input_bytes)})")
        if self.budget_bytes is not None:
            s += (f": fits {format_bytes(self.budget_bytes)}" if self.fits else
                  f": exceeds {format_bytes(self.budget_bytes)} by "
                  f"{format_bytes(self.deficit_bytes)}")
        return s


@dataclasses.dataclass(frozen=True)
class Slot:
    """Where one tensor lives in the arena."""
    node: str
    offset: int
    size_bytes: int
    birth: int
    death: int
    view: bool
    inplace: bool = False  # written over an input that dies at its step


@dataclasses.dataclass(frozen=True)
class Plan:
    """Every intermediate tensor placed in one arena."""
    arena_bytes: int
    lower_bound_bytes: int
    unshared_bytes: int
    inplace_saved_bytes: int
    slots: Tuple[Slot, ...]
    default_bindings: Tuple[str, ...] = ()

    @property
    def ratio(self) -> float:
        """arena / lower bound (1.0 is optimal)."""
        return self.arena_bytes / self.lower_bound_bytes if self.lower_bound_bytes else 1.0

    def __str__(self) -> str:
        return (f"arena {format_bytes(self.arena_bytes)} for {len(self.slots)} tensors, lower "
                f"bound {format_bytes(self.lower_bound_bytes)} (arena/LB {self.ratio:.4f})")


@dataclasses.dataclass(frozen=True)
class Fit:
    """The largest value of one dim whose peak fits the budget."""
    dim: str
    value: int
    estimate: Estimate
    next_peak_bytes: int

    def __str__(self) -> str:
        return f"largest {self.dim} that fits: {self.value} ({self.estimate})"


@dataclasses.dataclass(frozen=True)
class Alloc:
    """Offsets for a list of (size, birth, death) buffers."""
    offsets: Tuple[int, ...]
    arena_bytes: int
    lower_bound_bytes: int
    algorithm: str
    optimal: bool

    def __str__(self) -> str:
        return (f"{len(self.offsets)} buffers in {format_bytes(self.arena_bytes)} "
                f"(lower bound {format_bytes(self.lower_bound_bytes)}, {self.algorithm}"
                f"{', optimal' if self.optimal else ''})")


@dataclasses.dataclass(frozen=True)
class Tensor:
    name: str
    dtype: str
    shape: str
    size_bytes: Optional[int]


@dataclasses.dataclass(frozen=True)
class ModelInfo:
    nodes: int
    inputs: Tuple[Tensor, ...]
    outputs: Tuple[Tensor, ...]
    default_bindings: Tuple[str, ...] = ()

    def __str__(self) -> str:
        ins = ", ".join(f"{t.name} {t.dtype}{t.shape}" for t in self.inputs)
        outs = ", ".join(f"{t.name} {t.dtype}{t.shape}" for t in self.outputs)
        return f"{self.nodes} nodes; inputs: {ins}; outputs: {outs}"


def estimate(model: ModelLike, dims: Optional[Mapping[str, int]] = None,
             budget: Union[int, str, None] = None, algo: Optional[str] = None,
             alignment: int = 0) -> Estimate:
    """Peak memory (activations + weights + inputs) of one forward pass.

    ``dims`` binds symbolic dims (``{"batch": 8, "seq": 512}``); batch-like and unnamed
    dims left unbound become 1 (listed in ``default_bindings``). ``budget`` ("8GiB" or
    bytes) sets ``fits`` and ``deficit_bytes``. ``algo`` picks the activation planner
    (``"greedy"``, ``"bestfit"``, ``"auto"``, ...)."""
    d = _native.estimate(_source(model), _dims(dims), algo, int(alignment))
    return Estimate(d["activation_bytes"], d["weight_bytes"], d["input_bytes"], d["peak_bytes"],
                    None if budget is None else parse_size(budget),
                    tuple(d["default_bindings"]))


def plan(model: ModelLike, dims: Optional[Mapping[str, int]] = None,
         algo: Optional[str] = None, alignment: int = 0) -> Plan:
    """Place every tensor (weights and inputs included, as a runtime arena would)."""
    d = _native.plan(_source(model), _dims(dims), algo, int(alignment))
    slots = tuple(Slot(*row) for row in d["slots"])
    return Plan(d["arena_bytes"], d["lower_bound_bytes"], d["unshared_bytes"],
                d["inplace_saved_bytes"], slots, tuple(d["default_bindings"]))


def fit(model: ModelLike, dim: str, budget: Union[int, str],
        dims: Optional[Mapping[str, int]] = None, min_value: int = 1,
        max_value: int = 0) -> Fit:
    """The largest value of ``dim`` (e.g. ``"batch"`` or ``"seq"``) whose peak fits."""
    d = _native.fit(_source(model), _dims(dims), str(dim), parse_size(budget), int(min_value),
                    int(max_value))
    e = Estimate(d["activation_bytes"], d["weight_bytes"], d["input_bytes"], d["peak_bytes"],
                 parse_size(budget))
    return Fit(str(dim), d["value"], e, d["next_peak_bytes"])


def alloc(buffers: Any, algo: Optional[str] = None, alignment: int = 0) -> Alloc:
    """Offsets for buffers given as ``(size, birth, death)`` tuples (inclusive steps), or
    a NumPy structured array with fields ``size``, ``birth``, ``death``."""
    names = getattr(getattr(buffers, "dtype", None), "names", None)
    if names:
        rows: Sequence[Tuple[int, int, int]] = [
            (int(r["size"]), int(r["birth"]), int(r["death"])) for r in buffers]
    else:
        rows = [(int(s), int(b), int(e)) for s, b, e in buffers]
    d = _native.alloc(rows, algo, int(alignment))
    return Alloc(tuple(d["offsets"]), d["arena_bytes"], d["lower_bound_bytes"], d["algorithm"],
                 bool(d["optimal"]))


def inspect(model: ModelLike, dims: Optional[Mapping[str, int]] = None) -> ModelInfo:
    """Inputs and outputs with their dtypes, shapes and sizes."""
    d = _native.inspect(_source(model), _dims(dims))

    def tensors(rows: List[Any]) -> Tuple[Tensor, ...]:
        return tuple(Tensor(name, dt, shape, size) for (name, dt, shape), size in rows)

    return ModelInfo(d["nodes"], tensors(d["inputs"]), tensors(d["outputs"]),
                     tuple(d["default_bindings"]))


def version() -> str:
    """The C library's version."""
    return _native.version()
