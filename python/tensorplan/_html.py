"""The report's HTML tables (the same tables as ``tensorplan report --html``), wrapped by
the C library's page writer (tp_report_html_page: title, memory map, style, hover
script)."""
from __future__ import annotations

from html import escape
from typing import List, TYPE_CHECKING

from . import _native
from ._types import format_bytes

if TYPE_CHECKING:
    from ._types import Report


def _row(out: List[str], key: str, value: str) -> None:
    out.append(f'<tr><th>{escape(key)}</th><td class="num">{escape(value)}</td></tr>\n')


def _runtime_bars(out: List[str], r: "Report") -> None:
    o = r.onnxruntime
    terms = [
        ("weights", "#4e79a7", r.weights_bytes, o.weight_bytes),
        ("activations / arena", "#f28e2b", r.activations_bytes, o.arena_bytes),
        ("inputs", "#76b7b2", r.inputs_bytes, o.input_bytes),
        ("output copies", "#59a14f", 0, o.output_copy_bytes),
        ("pre-packed copies", "#e15759", 0, o.prepacked_bytes),
        ("session + nodes + model copy + margin", "#bab0ac", 0,
         o.session_fixed_bytes + o.graph_bytes + o.model_copy_bytes
         + o.calibration_margin_bytes),
    ]
    top = max(o.peak_bytes, r.budget_bytes, r.peak_bytes)
    if top == 0:
        return
    w = 600.0
    out.append('<h2>Runtimes</h2>\n<svg id="runtimes" width="760" height="110" '
               'xmlns="http://www.w3.org/2000/svg">\n')
    for row, name in enumerate(("best plan", "onnxruntime")):
        x, y = 150.0, 10.0 + 40.0 * row
        out.append(f'<text x="0" y="{y + 18:.0f}">{name}</text>\n')
        for label, color, plan_v, ort_v in terms:
            v = ort_v if row else plan_v
            bw = w * v / top
            if bw <= 0:
                continue
            out.append(f'<rect x="{x:.1f}" y="{y:.0f}" width="{bw:.1f}" height="26" '
                       f'fill="{color}"><title>{label} {format_bytes(v)}</title></rect>\n')
            x += bw
    bx = 150.0 + w * r.budget_bytes / top
    out.append(f'<line x1="{bx:.1f}" y1="4" x2="{bx:.1f}" y2="96" stroke="black" '
               'stroke-dasharray="4 2"><title>budget</title></line>\n</svg>\n')


def report_tables(r: "Report") -> str:
    """The tables of the report page (memory, runtimes, verdict, largest activations,
    IO profile, predicted latency)."""
    out: List[str] = ['<h2>Memory</h2>\n<table id="memory">\n']
    for key, value in (("weights (unique)", r.weights_bytes),
                       ("activations (arena)", r.activations_bytes),
                       ("activations, no reuse", r.activations_no_reuse_bytes),
                       ("lower bound", r.lower_bound_bytes), ("inputs", r.inputs_bytes),
                       ("peak", r.peak_bytes),
                       ("onnxruntime (CPU, default options)", r.onnxruntime.peak_bytes),
                       ("onnxruntime over the best plan",
                        max(0, r.onnxruntime.peak_bytes - r.peak_bytes)),
                       ("budget", r.budget_bytes)):
        _row(out, key, format_bytes(value))
    out.append("</table>\n")
    _runtime_bars(out, r)
    if r.fits:
        out.append(f'<p id="verdict" class="fits">fits, '
                   f'{format_bytes(max(0, r.budget_bytes - r.peak_bytes))} headroom</p>\n')
    else:
        out.append(f'<p id="verdict" class="over">does not fit: '
                   f'{escape(r.deficit_message or "")}</p>\n')
    out.append('<h2>Largest activations</h2>\n<table id="largest"><tr><th>node</th><th>op</th>'
               '<th class="num">size</th><th class="num">offset</th><th>live steps</th></tr>\n')
    for b in r.largest_activations:
        name = b.name or f"%{b.node}"
        out.append(f'<tr><td>{escape(name)}</td><td>{escape(b.op)}</td>'
                   f'<td class="num">{format_bytes(b.size_bytes)}</td>'
                   f'<td class="num">{b.offset_bytes}</td><td>{b.birth}..{b.death}</td></tr>\n')
    out.append('</table>\n<h2>IO profile</h2>\n<table id="io">\n')
    _row(out, "kernel launches", str(r.io.kernel_launches))
    _row(out, "device traffic", format_bytes(r.io.device_traffic_bytes))
    _row(out, "sync points", str(r.io.sync_points))
    _row(out, "host output", format_bytes(r.io.host_output_bytes))
    out.append('</table>\n<h2>Predicted latency</h2>\n<table id="latency"><tr><th>device</th>'
               '<th>source</th><th class="num">ms</th><th></th></tr>\n')
    for d in r.devices:
        if d.available and d.model is not None and d.total_ns is not None:
            chosen = "chosen" if d.model.name == r.choice else ""
            out.append(f'<tr><td>{escape(d.request)}</td><td>{escape(d.model.source)}</td>'
                       f'<td class="num">{d.total_ns / 1e6:.3f}</td><td>{chosen}</td></tr>\n')
        else:
            out.append(f'<tr><td>{escape(d.request)}</td><td colspan="3">unavailable: '
                       f'{escape(d.reason or "")}</td></tr>\n')
    out.append("</table>\n")
    return "".join(out)


def report_page(r: "Report") -> str:
    """The whole page: the library's frame around the memory map and report_tables(r)."""
    return _native.html_page(f"tensorplan report: {r.model}", r.svg, report_tables(r))
