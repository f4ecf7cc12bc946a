"""The result types of tensorplan's Python API: frozen dataclasses whose fields are the
terms of the CLI's JSON documents (docs/json.md, docs/schema/*.schema.json).

Sizes are ``int`` bytes (fields ending in ``_bytes``), durations ``float`` nanoseconds
(``_ns``); only ``str()`` turns them into human text (binary units)."""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Dict, Mapping, Optional, Tuple, Type, TypeVar, Union

__all__ = [
    "Error", "BoundedDim", "OrtOptions", "RuntimeTerms", "Runtime", "Estimate", "Slot",
    "Plan", "Fit", "Alloc", "Opset", "ValueInfo", "Params", "ModelInfo", "GemmPoint",
    "SkinnyPoint", "ReadPoint", "DeviceModel", "DeviceCost", "Cost", "OnnxruntimeFigure", "Buffer",
    "Peak", "IoProfile", "Report", "parse_size", "format_bytes",
]


class Error(Exception):
    """A failure reported by the C library (bad model, unbound dim, bad option, ...).

    ``code`` is the library's status name (``"TP_ERR_PARSE"``, ``"TP_ERR_NOT_FOUND"``,
    ``"TP_ERR_UNBOUND"``, ...), ``message`` its text (with the file offset, node and op
    where the library knows them), ``node`` the node id it is about (or None) and
    ``offset`` the byte offset in the model file (or None)."""

    code: str
    message: str
    node: Optional[int]
    offset: Optional[int]

    def __init__(self, code: str, message: str, node: Optional[int] = None,
                 offset: Optional[int] = None) -> None:
        super().__init__(f"{message} ({code})")
        self.code = code
        self.message = message
        self.node = node
        self.offset = offset

    def __reduce__(self) -> Any:  # picklable across processes
        return (type(self), (self.code, self.message, self.node, self.offset))


_UNITS = {"": 0, "b": 0, "k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20,
          "g": 30, "gb": 30, "gib": 30, "t": 40, "tb": 40, "tib": 40, "p": 50, "pb": 50,
          "pib": 50}


def parse_size(size: Union[int, str]) -> int:
    """Bytes from an int or a string such as ``"512MiB"``, ``"8GiB"``, ``"1.5G"`` (binary
    units, as the CLI reads them: K, KB and KiB are all 1024)."""
    if isinstance(size, bool):
        raise TypeError("size: int or str, not bool")
    if isinstance(size, int):
        if size < 0:
            raise ValueError(f"size must be >= 0, got {size}")
        return size
    if not isinstance(size, str):
        raise TypeError(f"size: int or str, not {type(size).__name__}")
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", size)
    if not m or m.group(2).lower() not in _UNITS:
        raise ValueError(f"not a size: {size!r} (examples: 4096, 512MiB, 8GiB, 1.5G)")
    value = float(m.group(1)) * (1 << _UNITS[m.group(2).lower()])
    if value != int(value):
        raise ValueError(f"{size!r} is not a whole number of bytes")
    return int(value)


def format_bytes(n: int) -> str:
    """``"1.5 GiB"`` style text for a byte count (binary units, one decimal)."""
    v, units = float(n), ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    u = 0
    while v >= 1024 and u < len(units) - 1:
        v /= 1024
        u += 1
    return f"{int(v)} B" if u == 0 else f"{v:.1f} {units[u]}"


T = TypeVar("T")


def _build(cls: Type[T], d: Mapping[str, Any], **convert: Any) -> T:
    """cls from the keys of d that are its fields; convert[name](value) where given."""
    kw = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name in d:
            v = d[f.name]
            kw[f.name] = convert[f.name](v) if f.name in convert and v is not None else v
    return cls(**kw)


def _tuple_of(cls: Type[T]) -> Any:
    return lambda rows: tuple(_build(cls, r) for r in rows)


@dataclasses.dataclass(frozen=True)
class BoundedDim:
    """A data-dependent dim the importer set to its upper bound (``why`` says where from)."""
    symbol: str
    value: int
    why: str


@dataclasses.dataclass(frozen=True)
class OrtOptions:
    """onnxruntime session options that change its memory (the defaults are
    onnxruntime's); used with ``runtime="onnxruntime"``."""
    mem_pattern: bool = True
    cpu_arena: bool = True
    arena_extend_strategy: str = "next-power-of-two"  # or "same-as-requested"
    prepacking: bool = True
    intra_op_threads: int = 2  # 0 = one per core
    # the caller copies every output into its own buffers (onnxruntime-node, Python's
    # onnxruntime); False for a C/C++ caller
    copy_outputs: bool = True


@dataclasses.dataclass(frozen=True)
class RuntimeTerms:
    """What a runtime's peak is made of (they sum to ``Runtime.peak_bytes``)."""
    session_fixed_bytes: int
    graph_bytes: int
    model_copy_bytes: int
    weight_bytes: int
    prepacked_bytes: int
    arena_bytes: int
    input_bytes: int
    output_copy_bytes: int  # the binding's copies of the outputs (node, Python)
    calibration_margin_bytes: int


@dataclasses.dataclass(frozen=True)
class Runtime:
    """A runtime profile's figure (docs/runtime.md): ``"plan"`` (the best plan, nothing
    added) or ``"onnxruntime"`` (CPU execution provider; an upper estimate). The
    onnxruntime profile also fills the detail fields."""
    name: str
    peak_bytes: int
    plan_peak_bytes: int
    over_plan_bytes: int
    terms: RuntimeTerms
    activation_plan_bytes: Optional[int] = None
    arena_first_run_bytes: Optional[int] = None
    mem_pattern_bytes: Optional[int] = None
    arena_emulated_bytes: Optional[int] = None
    load_transient_bytes: Optional[int] = None
    node_count: Optional[int] = None
    model_file_bytes: Optional[int] = None
    conv_weight_bytes: Optional[int] = None
    conv_nchwc_weight_bytes: Optional[int] = None
    conv_flat_weight_bytes: Optional[int] = None
    gemm_weight_bytes: Optional[int] = None
    other_weight_bytes: Optional[int] = None
    body_weight_bytes: Optional[int] = None
    heap_emulated_weight_bytes: Optional[int] = None
    heap_emulated_bytes: Optional[int] = None
    arena_in_holes_bytes: Optional[int] = None
    arena_reserved_bytes: Optional[int] = None
    session_fixed_source: Optional[str] = None
    not_modelled: Optional[str] = None
    options: Optional[OrtOptions] = None

    def __str__(self) -> str:
        return (f"{self.name}: {format_bytes(self.peak_bytes)} "
                f"({format_bytes(self.over_plan_bytes)} over the best plan)")

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> "Runtime":
        return _build(cls, d, terms=lambda t: _build(RuntimeTerms, t),
                      options=lambda o: _build(OrtOptions, o))


@dataclasses.dataclass(frozen=True)
class Estimate:
    """Peak memory of one forward pass: ``tensorplan estimate --json``.

    ``peak_bytes = weights_bytes + activations_bytes + inputs_bytes`` (the best plan);
    ``runtime.peak_bytes`` is the chosen runtime's figure, the one checked against
    ``budget_bytes`` (``fits``, ``deficit_bytes``, ``headroom_bytes``, ``message``)."""
    model: str
    weights_bytes: int
    activations_bytes: int
    inputs_bytes: int
    peak_bytes: int
    param_bytes: int
    constant_bytes: int
    tied_params_skipped: int
    budget_bytes: int
    budget_source: str
    fits: bool
    deficit_bytes: int
    headroom_bytes: int
    runtime: Runtime
    notes: Tuple[str, ...] = ()
    bounded_dims: Tuple[BoundedDim, ...] = ()
    message: Optional[str] = None
    default_bindings: Tuple[str, ...] = ()

    def __str__(self) -> str:
        s = (f"peak {format_bytes(self.peak_bytes)} (activations "
             f"{format_bytes(self.activations_bytes)}, weights {format_bytes(self.weights_bytes)}, "
             f"inputs {format_bytes(self.inputs_bytes)})")
        if self.runtime.name != "plan":
            s += f"; {self.runtime}"
        if self.fits:
            return s + (f": fits {format_bytes(self.budget_bytes)} "
                        f"({format_bytes(self.headroom_bytes)} headroom)")
        return s + f": does not fit: {self.message}"

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> "Estimate":
        return _build(cls, d, runtime=Runtime._from, notes=tuple,
                      bounded_dims=_tuple_of(BoundedDim), default_bindings=tuple)


@dataclasses.dataclass(frozen=True)
class Slot:
    """Where one node's tensor lives: ``node`` is its step (topological index), ``offset``
    and ``size`` in bytes, live over steps ``birth..death``; a ``view`` shares its
    ``root``'s bytes, an ``inplace`` slot writes over an input that dies at its step."""
    node: int
    name: str
    op: str
    offset: int
    size: int
    birth: int
    death: int
    view: bool
    inplace: bool
    root: int


@dataclasses.dataclass(frozen=True)
class Plan:
    """Every tensor placed in one arena: ``tensorplan plan --json``."""
    model: str
    algo: str
    alignment: int
    nodes: int
    arena_bytes: int
    lower_bound_bytes: int
    arena_over_lower_bound: float
    unshared_bytes: int
    saved_bytes: int
    inplace_saved_bytes: int
    optimal: bool
    slots: Tuple[Slot, ...] = dataclasses.field(repr=False, default=())
    default_bindings: Tuple[str, ...] = ()

    def __str__(self) -> str:
        return (f"arena {format_bytes(self.arena_bytes)} for {len(self.slots)} tensors "
                f"({self.algo}), lower bound {format_bytes(self.lower_bound_bytes)} "
                f"(arena/LB {self.arena_over_lower_bound:.4f}{', optimal' if self.optimal else ''}"
                f"), {format_bytes(self.saved_bytes)} saved of "
                f"{format_bytes(self.unshared_bytes)}")

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> "Plan":
        return _build(cls, d, slots=lambda rows: tuple(Slot(*r) for r in rows),
                      default_bindings=tuple)


@dataclasses.dataclass(frozen=True)
class Fit:
    """The largest value of one dim whose peak fits the budget: ``tensorplan fit --json``.
    ``fits`` is False when even ``min`` does not fit (``message`` says by how much)."""
    model: str
    dim: str
    budget_bytes: int
    budget_source: str
    fits: bool
    value: int
    peak_bytes: int
    weights_bytes: int
    activations_bytes: int
    inputs_bytes: int
    next_value: int
    next_peak_bytes: Optional[int]
    at_max: bool
    min: int
    max: int
    plans_evaluated: int
    message: Optional[str] = None
    default_bindings: Tuple[str, ...] = ()

    def __str__(self) -> str:
        if not self.fits:
            return f"no {self.dim} fits {format_bytes(self.budget_bytes)}: {self.message}"
        nxt = ("" if self.next_peak_bytes is None else
               f"; {self.dim}={self.next_value} needs {format_bytes(self.next_peak_bytes)}")
        return (f"largest {self.dim} that fits {format_bytes(self.budget_bytes)}: {self.value} "
                f"(peak {format_bytes(self.peak_bytes)}{nxt})")

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> "Fit":
        return _build(cls, d, default_bindings=tuple)


@dataclasses.dataclass(frozen=True)
class Alloc:
    """Offsets for (size, birth, death) buffers: ``tensorplan alloc --json`` plus the
    offsets (``offsets[i]`` is buffer i's, in bytes)."""
    buffers: int
    offsets: Tuple[int, ...] = dataclasses.field(repr=False)
    arena_bytes: int
    lower_bound_bytes: int
    ratio: Optional[float]  # arena / lower bound; None when the bound is 0
    algorithm: str
    optimal: bool

    def __str__(self) -> str:
        return (f"{self.buffers} buffers in {format_bytes(self.arena_bytes)} (lower bound "
                f"{format_bytes(self.lower_bound_bytes)}, {self.algorithm}"
                f"{', optimal' if self.optimal else ''})")

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> "Alloc":
        return _build(cls, d, offsets=tuple)


@dataclasses.dataclass(frozen=True)
class Opset:
    """An imported operator set (``domain`` "" is ai.onnx)."""
    domain: str
    version: int


@dataclasses.dataclass(frozen=True)
class ValueInfo:
    """A graph input or output: ONNX ``elem_type``, tensorplan ``dtype``, ``shape`` (ints,
    dim names, None for unknown; None when not given) and ``size_bytes`` once bound."""
    name: str
    elem_type: str
    dtype: Optional[str]
    shape: Optional[Tuple[Union[int, str, None], ...]]
    size_bytes: Optional[int]


@dataclasses.dataclass(frozen=True)
class Params:
    """The main graph's initializers."""
    count: int
    elements: int
    bytes: int
    unique_bytes: int
    external_bytes: int
    external_count: int


@dataclasses.dataclass(frozen=True)
class ModelInfo:
    """What is in an ONNX file: ``tensorplan inspect --json`` (without ``nodes[]``)."""
    model: str
    file_bytes: int
    ir_version: int
    producer_name: str
    producer_version: str
    graph_name: str
    opset: int
    opsets: Tuple[Opset, ...]
    inputs: Tuple[ValueInfo, ...]
    outputs: Tuple[ValueInfo, ...]
    n_nodes: int
    n_nodes_total: int
    n_subgraphs: int
    ops: Dict[str, int]
    params: Params
    shapes_inferred: bool
    shape_error: Optional[str] = None
    default_bindings: Tuple[str, ...] = ()

    def __str__(self) -> str:
        def vi(v: ValueInfo) -> str:
            shape = "?" if v.shape is None else ",".join("?" if d is None else str(d)
                                                         for d in v.shape)
            size = "" if v.size_bytes is None else f" {format_bytes(v.size_bytes)}"
            return f"{v.name} {v.dtype or v.elem_type}[{shape}]{size}"
        return (f"{self.graph_name or self.model}: {self.n_nodes} nodes, opset {self.opset}, "
                f"params {format_bytes(self.params.bytes)}; inputs: "
                f"{', '.join(vi(v) for v in self.inputs)}; outputs: "
                f"{', '.join(vi(v) for v in self.outputs)}")

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> "ModelInfo":
        def value(r: Mapping[str, Any]) -> ValueInfo:
            return _build(ValueInfo, r, shape=tuple)
        return _build(cls, d, opsets=_tuple_of(Opset),
                      inputs=lambda rows: tuple(value(r) for r in rows),
                      outputs=lambda rows: tuple(value(r) for r in rows),
                      params=lambda p: _build(Params, p), default_bindings=tuple)


@dataclasses.dataclass(frozen=True)
class GemmPoint:
    """GEMM throughput at a cube-root shape ``dim``."""
    dim: float
    gflops: float


@dataclasses.dataclass(frozen=True)
class SkinnyPoint:
    """GEMM throughput when the smallest dim is ``min_dim``."""
    min_dim: float
    gflops: float


@dataclasses.dataclass(frozen=True)
class ReadPoint:
    """Read bandwidth (GB/s) for a working set of ``bytes`` (calibrated CPUs)."""
    bytes: float
    gbps: float


@dataclasses.dataclass(frozen=True)
class DeviceModel:
    """A device's roofline model (measured, catalog or default figures)."""
    name: str
    kind: str
    source: str
    gemm_impl: str
    gemm_gflops: Tuple[GemmPoint, ...]
    skinny_gflops: Tuple[SkinnyPoint, ...]
    read_gbps: Tuple[ReadPoint, ...]
    read_streams_gbps: Tuple[ReadPoint, ...]  # several streams at once, vector loads (LLM AMX decode)
    f16_speedup: float
    bf16_speedup: float
    int8_speedup: float  # 8-bit integer GEMMs (u8 x s8) against f32; measured by a CPU calibration
    u8u8_speedup: float  # those of two unsigned operands (0: as int8_speedup)
    mem_gbps: float
    readback_gbps: float
    dispatch_ns: float
    round_trip_ns: float
    barrier_ns: float  # spinning-barrier meeting of the threads (0: one thread / not measured)
    wake_ns: float  # waking one sleeping pool thread, caller's side (0: one thread / not measured)
    gemm_stream_gbps: float  # weight bytes/ns a few-row GEMM streams from memory (0: not measured)
    norm_gbps: float  # row normalization (LayerNorm) bytes read + written per ns (0: not measured)
    gelu_gbps: float  # erf GELU as one kernel (onnxruntime's Gelu), bytes read + written per ns (0: not measured)
    skip_norm_gbps: float  # residual add + LayerNorm with running row statistics (onnxruntime's SkipLayerNormalization), bytes per ns (0: not measured)
    int8_dot_gops: float  # int8 block-dot products, 2 ops per multiply-add per ns (0: not measured)
    amx_int8_gops: float  # the same on AMX tiles (0: no AMX-INT8 or not measured)
    denormal_ns: float  # extra ns per vector multiply-add with a denormal operand (0: none / not measured)
    vector_floats: int  # f32 lanes of the CPU's widest vector ISA (16 AVX-512, 8 AVX2; 0: unknown)
    im2col_gbps: float  # expand pass (im2col + packing) of expand-then-GEMM convolutions, column bytes per ns (0: not measured)
    col2im_gbps: float  # col2im of transposed convolutions, column bytes read per ns on one thread (0: not measured)
    bias_gelu_gbps: float  # BiasGelu (bias Add + erf GELU in one kernel), bytes read + written per ns (0: not measured)
    prelu_gbps: float  # PRelu (one element at a time, a branch on its sign), bytes read + written per ns (0: not measured)
    transpose_gbps: float  # element-at-a-time transpose walk, element bytes copied per ns on one thread (0: not measured)
    unified: bool
    threads: int
    memory_bytes: int
    efficiency: float


@dataclasses.dataclass(frozen=True)
class DeviceCost:
    """One requested device: its model and predicted latency, or why it is unavailable."""
    request: str
    available: bool
    model: Optional[DeviceModel] = None
    reason: Optional[str] = None
    total_ns: Optional[float] = None
    round_trip_ns: Optional[float] = None
    nodes_ns: Optional[float] = None
    readback_ns: Optional[float] = None
    sync_ns: Optional[float] = None
    flops: Optional[int] = None
    bytes: Optional[int] = None

    def __str__(self) -> str:
        if not self.available:
            return f"{self.request}: unavailable: {self.reason}"
        assert self.model is not None and self.total_ns is not None
        return (f"{self.request}: {self.total_ns / 1e6:.3f} ms predicted "
                f"({self.model.kind}, {self.model.source})")

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> "DeviceCost":
        return _build(cls, d, model=lambda m: _build(
            DeviceModel, m, gemm_gflops=_tuple_of(GemmPoint),
            skinny_gflops=_tuple_of(SkinnyPoint), read_gbps=_tuple_of(ReadPoint),
            read_streams_gbps=_tuple_of(ReadPoint)))


@dataclasses.dataclass(frozen=True)
class Cost:
    """Predicted latency of one forward pass per device and the device chosen:
    ``tensorplan cost --json`` (``choice`` or ``choice_error``)."""
    model: str
    devices: Tuple[DeviceCost, ...]
    choice: Optional[str] = None
    choice_error: Optional[str] = None
    default_bindings: Tuple[str, ...] = ()

    @property
    def chosen(self) -> Optional[DeviceCost]:
        """The chosen device's entry (None when nothing was chosen)."""
        for d in self.devices:
            if d.available and d.model is not None and d.model.name == self.choice:
                return d
        return None

    def __str__(self) -> str:
        lines = [str(d) for d in self.devices]
        lines.append(f"choice: {self.choice}" if self.choice else
                     f"choice: none ({self.choice_error})")
        return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class OnnxruntimeFigure:
    """What onnxruntime (CPU, default options) would take, and its terms."""
    peak_bytes: int
    over_plan_bytes: int
    session_fixed_bytes: int
    graph_bytes: int
    model_copy_bytes: int
    weight_bytes: int
    prepacked_bytes: int
    arena_bytes: int
    input_bytes: int
    output_copy_bytes: int  # the binding's copies of the outputs (node, Python)
    calibration_margin_bytes: int
    not_modelled: Optional[str] = None  # what the profile leaves out ("" when nothing)


@dataclasses.dataclass(frozen=True)
class Buffer:
    """An activation buffer of the report (``death`` includes its views' and in-place
    users' steps)."""
    node: int
    name: str
    op: str
    size_bytes: int
    offset_bytes: int
    birth: int
    death: int


@dataclasses.dataclass(frozen=True)
class Peak:
    """The step where the most activation bytes are live, and the largest buffers there."""
    step: int
    live_bytes: int
    largest_live: Tuple[Buffer, ...]


@dataclasses.dataclass(frozen=True)
class IoProfile:
    """Kernel launches, device traffic, host syncs and read-back of one forward pass."""
    kernel_launches: int
    device_traffic_bytes: int
    sync_points: int
    host_output_bytes: int
    host_readback_unified_bytes: int
    host_readback_discrete_bytes: int


@dataclasses.dataclass(frozen=True)
class Report:
    """Everything ``tensorplan report --json`` says about a model. ``svg`` is the
    memory map (present when asked for with ``svg=`` or ``html=``); ``to_html()`` is
    the page ``tensorplan report --html`` writes."""
    model: str
    nodes: int
    params: int
    op_counts: Dict[str, int]
    weights_bytes: int
    activations_bytes: int
    activations_no_reuse_bytes: int
    lower_bound_bytes: int
    inputs_bytes: int
    peak_bytes: int
    budget_bytes: int
    budget_source: str
    fits: bool
    deficit_bytes: int
    deficit_message: Optional[str]
    runtime: str
    onnxruntime: OnnxruntimeFigure
    largest_activations: Tuple[Buffer, ...]
    peak: Peak
    io: IoProfile
    devices: Tuple[DeviceCost, ...]
    choice: Optional[str]
    notes: Tuple[str, ...] = ()
    bounded_dims: Tuple[BoundedDim, ...] = ()
    default_bindings: Tuple[str, ...] = ()
    svg: Optional[str] = dataclasses.field(default=None, repr=False)

    def to_html(self) -> str:
        """The self-contained HTML page: memory map, tables, details on hover."""
        from ._html import report_page
        return report_page(self)

    def __str__(self) -> str:
        verdict = (f"FITS: {format_bytes(self.budget_bytes - self.peak_bytes)} headroom"
                   if self.fits else f"DOES NOT FIT: {self.deficit_message}")
        lines = [
            f"{self.model}: {self.nodes} nodes, {self.params} params",
            f"  weights {format_bytes(self.weights_bytes)}, activations "
            f"{format_bytes(self.activations_bytes)} (no reuse "
            f"{format_bytes(self.activations_no_reuse_bytes)}, lower bound "
            f"{format_bytes(self.lower_bound_bytes)}), inputs {format_bytes(self.inputs_bytes)}",
            f"  peak {format_bytes(self.peak_bytes)}, budget {format_bytes(self.budget_bytes)}: "
            f"{verdict}",
            f"  onnxruntime (CPU, default options) {format_bytes(self.onnxruntime.peak_bytes)}",
        ]
        lines += [f"  {d}" for d in self.devices]
        if self.devices:
            lines.append(f"  choice: {self.choice}")
        return "\n".join(lines)

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> "Report":
        buffers = _tuple_of(Buffer)
        return _build(
            cls, d, onnxruntime=lambda o: _build(OnnxruntimeFigure, o),
            largest_activations=buffers,
            peak=lambda p: _build(Peak, p, largest_live=buffers),
            io=lambda o: _build(IoProfile, o),
            devices=lambda rows: tuple(DeviceCost._from(r) for r in rows),
            notes=tuple, bounded_dims=_tuple_of(BoundedDim), default_bindings=tuple)
