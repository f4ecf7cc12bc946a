#!/usr/bin/env bash
# The HTML report in a real browser: `tensorplan report --html` writes the page,
# headless Chromium (Debian `chromium`) renders it, and we check
#   - the page is self-contained (no external scripts, styles or images);
#   - the 1280x1600 screenshot is not blank: enough non-white pixels and
#     colours, and the fill colours of the memory map's larger buffers are on
#     screen (read with /usr/bin/python3 + zlib, no imaging library);
#   - the DOM after scripts ran (--dump-dom): svg#memory-map with rect.buf
#     elements carrying data-node/name/op/offset/size/birth/death, #live-bytes,
#     #lower-bound, #peak, #arena, and the tables #memory, #largest, #io,
#     #latency with rows, whose peak and largest activation agree with the text
#     report printed by the same run;
#   - hover: the page's own script fills #details for a buffer (a mouseenter is
#     dispatched by a script appended to a copy of the page);
#   - an over-budget run (exit 3, the demo decoder) still writes the page, with
#     the deficit.
# Skips (exit 0 with a message) only when chromium is not installed.
# Set TP_SCREENSHOT=FILE.png to keep the screenshot.
# usage: test_html_browser.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    echo "SKIP: chromium is not installed (apt-get install chromium; scripts/deps-test.sh installs it)"
    exit 0
fi
fails=0
pass=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
export HOME="$tmp/home" # chromium writes its profile and crash dumps under HOME
mkdir -p "$HOME"

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() {
    fails=$((fails + 1))
    echo "FAIL $1"
    if [ -n "${2:-}" ]; then printf '%s\n' "$2" | sed 's/^/  /'; fi
}
finish() {
    echo "$pass passed, $fails failed"
    [ "$fails" -eq 0 ]
    exit
}
chrome() { # ARGS... URL: headless chromium with a private profile
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --no-first-run --disable-extensions --user-data-dir="$tmp/profile" "$@"
}

if ! "$TP" --help 2>&1 | grep -q '^  report '; then
    bad "tensorplan has a 'report' subcommand" "$("$TP" --help 2>&1 | head -20)"
    finish
fi

# 1. The page of the bundled example (the README's first command, `tensorplan
# report`, with a budget and catalog devices: no calibration, same figures everywhere).
page="$tmp/report.html"
"$TP" report --budget 1GiB --devices h100-sxm,l4,cpu-default --html "$page" \
    >"$tmp/report.txt" 2>"$tmp/report.err"
rc=$?
if [ "$rc" -eq 0 ] && [ -s "$page" ]; then ok "report --html wrote $(wc -c <"$page") bytes"; else
    bad "report --html" "exit $rc: $(head -c 400 "$tmp/report.err")"
    finish
fi
if grep -Eiq '<(script|img|iframe)[^>]* src=|<link[^>]*stylesheet|url\((https?:)?//|(src|href)="(https?:)?//' "$page"; then
    bad "the page is self-contained" "$(grep -Eio '<(script|img|link|iframe)[^>]*>' "$page" | head -5)"
else
    ok "the page is self-contained (no external scripts, styles or images)"
fi

# 2. Screenshot.
png="$tmp/page.png"
chrome --screenshot="$png" --window-size=1280,1600 "file://$page" >"$tmp/chrome.log" 2>&1
if [ -s "$png" ]; then ok "chromium screenshot ($(wc -c <"$png") bytes)"; else
    bad "chromium screenshot" "$(tail -5 "$tmp/chrome.log")"
fi
[ -n "${TP_SCREENSHOT:-}" ] && [ -s "$png" ] && cp "$png" "$TP_SCREENSHOT"

# 3. The DOM after the page's scripts ran, and after a hover.
chrome --dump-dom "file://$page" >"$tmp/dom.html" 2>"$tmp/chrome.log"
[ -s "$tmp/dom.html" ] || bad "chromium --dump-dom" "$(tail -5 "$tmp/chrome.log")"
hover="$tmp/hover.html"
# A copy of the page with a test script appended: hover the largest buffer
# (the page's own handler fills #details), and measure the memory map's text
# labels: pairs that overlap, and labels outside the picture.
cat >"$tmp/probe.js" <<'JSEOF'
(function () {
  var best = null;
  document.querySelectorAll("#memory-map rect.buf").forEach(function (r) {
    if (!best || Number(r.dataset.size) > Number(best.dataset.size)) best = r;
  });
  if (best) best.dispatchEvent(new MouseEvent("mouseenter"));
  document.body.setAttribute("data-hovered", best ? best.dataset.name : "");
  var svg = document.getElementById("memory-map"), overlaps = [], outside = [];
  if (svg) {
    var box = svg.getBoundingClientRect();
    var ts = Array.prototype.filter.call(svg.querySelectorAll("text"), function (t) {
      return t.textContent.trim() !== "";
    });
    var rs = ts.map(function (t) { return t.getBoundingClientRect(); });
    for (var i = 0; i < ts.length; i++) {
      var a = rs[i];
      if (a.left < box.left - 1 || a.right > box.right + 1 || a.top < box.top - 1 || a.bottom > box.bottom + 1)
        outside.push(ts[i].textContent);
      for (var j = i + 1; j < ts.length; j++) {
        var b = rs[j];
        var w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        var h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 1 && h > 1) overlaps.push([ts[i].textContent, ts[j].textContent]);
      }
    }
  }
  document.body.setAttribute("data-overlaps", JSON.stringify(overlaps));
  document.body.setAttribute("data-outside", JSON.stringify(outside));
})();
JSEOF
with_probe() { # PAGE OUT: PAGE with probe.js appended to its body
    "$PY" -c '
import sys
page, js, out = sys.argv[1:4]
html = open(page, encoding="utf-8").read()
k = html.rfind("</body>")
k = len(html) if k < 0 else k
open(out, "w", encoding="utf-8").write(html[:k] + "<script>" + open(js, encoding="utf-8").read() + "</script>" + html[k:])
' "$1" "$tmp/probe.js" "$2"
}
with_probe "$page" "$hover"
chrome --dump-dom "file://$hover" >"$tmp/hover.dom" 2>"$tmp/chrome.log"

# 4. An over-budget run still writes its page.
over="$tmp/over.html"
"$TP" report --demo --budget 100MiB --devices h100-sxm --html "$over" >"$tmp/over.txt" 2>&1
rc=$?
if [ "$rc" -eq 3 ] && [ -s "$over" ]; then ok "over budget: exit 3 and the page is written"; else
    bad "over budget: exit 3 and the page is written" "exit $rc: $(head -c 300 "$tmp/over.txt")"
fi
with_probe "$over" "$tmp/over.probe.html"
chrome --dump-dom "file://$tmp/over.probe.html" >"$tmp/over.dom" 2>"$tmp/chrome.log"

# 5. An LLM on several devices (report MODEL.gguf --devices SPEC --html): one bar per
# device, whose segments (model, KV, compute, output) carry the bytes of the placement
# JSON of the same run, and the free segment the device's free bytes.
"$PY" tests/cli/make_tiny_gguf.py "$tmp/tiny.gguf"
devs=cuda0:40MiB,cuda1:530MiB,cpu:1GiB # cuda1: 18 MiB once the 512 MiB CUDA reserve is off: over
"$TP" report "$tmp/tiny.gguf" --devices $devs --html "$tmp/llm.html" >"$tmp/llm.txt" 2>&1
rc=$?
"$TP" estimate "$tmp/tiny.gguf" --devices $devs --json >"$tmp/llm.json" 2>/dev/null
if [ "$rc" -eq 3 ] && [ -s "$tmp/llm.html" ]; then ok "LLM report --devices --html: exit 3, page written"; else
    bad "LLM report --devices --html" "exit $rc: $(head -c 300 "$tmp/llm.txt")"
fi
chrome --dump-dom "file://$tmp/llm.html" >"$tmp/llm.dom" 2>"$tmp/chrome.log"
"$PY" - "$tmp/llm.dom" "$tmp/llm.json" >"$tmp/llm.check" 2>&1 <<'PYEOF'
import json, re, sys
dom, plan = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
svg = re.search(r'<svg[^>]*id="device-bars".*?</svg>', dom, re.S)
fails = 0
def check(cond, what, detail=""):
    global fails
    print(("ok   " if cond else "FAIL ") + what + ("" if cond else "\n  " + detail))
    fails += not cond
check(svg is not None, "the DOM has svg#device-bars")
if svg:
    segs = re.findall(r'data-bytes="(\d+)"><title>([^<:]*): ([^<]*?) [0-9.]+ [KMGT]?i?B</title>', svg.group(0))
    for d in plan["devices"]:
        mine = {what: int(b) for b, name, what in segs if name == d["name"]}
        want = {k: d[f] for k, f in (("model", "model_bytes"), ("KV cache", "kv_bytes"),
                                      ("compute", "compute_bytes"), ("output", "output_bytes")) if d[f]}
        if d["capacity_known"] and d["fits"]:
            want["free"] = d["free_bytes"]
        check(mine == want, "bar of %s carries the placement's bytes" % d["name"], "%s != %s" % (mine, want))
    over = [d["name"] for d in plan["devices"] if d["capacity_known"] and not d["fits"]]
    check(len(re.findall(r'<line[^>]*stroke="#d62728"', svg.group(0))) == len(over),
          "a capacity line marks each device that does not fit (%s)" % ", ".join(over))
sys.exit(1 if fails else 0)
PYEOF
cat "$tmp/llm.check"
pass=$((pass + $(grep -c '^ok ' "$tmp/llm.check")))
fails=$((fails + $(grep -c '^FAIL ' "$tmp/llm.check")))

cat >"$tmp/check.py" <<'PYEOF'
import re, struct, sys, zlib
from collections import Counter
from html.parser import HTMLParser

tmp = sys.argv[1]
fails = 0


def ok(what):
    print("ok   " + what)


def bad(what, detail=""):
    global fails
    fails += 1
    print("FAIL " + what + ("\n  " + detail if detail else ""))


def check(cond, what, detail=""):
    ok(what) if cond else bad(what, detail)


def read_png(path):
    """(width, height, bytes per pixel, rows): 8-bit grey/RGB/RGBA, not interlaced."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, hdr = 8, [], None
    while pos + 8 <= len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if typ == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif typ == b"IDAT":
            idat.append(body)
        elif typ == b"IEND":
            break
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or interlace != 0 or ctype not in (0, 2, 4, 6):
        raise ValueError("unsupported PNG: depth %d colour type %d interlace %d" % (depth, ctype, interlace))
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    stride = w * bpp
    raw = zlib.decompress(b"".join(idat))
    if len(raw) != h * (stride + 1):
        raise ValueError("PNG data is %d bytes, want %d" % (len(raw), h * (stride + 1)))
    lo = int.from_bytes(b"\x7f" * stride, "little")
    hi = int.from_bytes(b"\x80" * stride, "little")
    mask = (1 << (8 * stride)) - 1

    def add(a, b):  # bytewise (a + b) mod 256 of two rows held as big integers
        return ((a & lo) + (b & lo)) ^ ((a ^ b) & hi)

    rows, prev = [], bytes(stride)
    for y in range(h):
        ft = raw[y * (stride + 1)]
        cur = raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        if ft == 0:  # None
            out = cur
        elif ft == 1:  # Sub: a prefix sum with stride bpp, by doubling
            x, shift = int.from_bytes(cur, "little"), bpp
            while shift < stride:
                x = add(x, (x << (8 * shift)) & mask)
                shift *= 2
            out = x.to_bytes(stride, "little")
        elif ft == 2:  # Up
            out = add(int.from_bytes(cur, "little"), int.from_bytes(prev, "little")).to_bytes(stride, "little")
        elif ft in (3, 4):  # Average, Paeth
            o = bytearray(cur)
            for i in range(stride):
                a = o[i - bpp] if i >= bpp else 0
                b = prev[i]
                if ft == 3:
                    o[i] = (o[i] + ((a + b) >> 1)) & 255
                else:
                    c = prev[i - bpp] if i >= bpp else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    o[i] = (o[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            out = bytes(o)
        else:
            raise ValueError("row %d: bad filter type %d" % (y, ft))
        rows.append(out)
        prev = out
    return w, h, bpp, rows


class Dom(HTMLParser):
    """Elements as (tag, attrs) in document order, text per id'd element, table rows."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elems, self.text, self.tables = [], {}, {}
        self.open_ids, self.table, self.row, self.cell = [], None, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elems.append((tag, a))
        if tag in ("rect", "line", "polyline", "circle", "path", "br", "meta", "img", "input"):
            if "id" in a:
                self.text.setdefault(a["id"], "")
            return
        self.open_ids.append(a.get("id"))
        if tag == "table":
            self.table = a.get("id", "")
            self.tables[self.table] = []
        elif tag == "tr" and self.table is not None:
            self.row = []
            self.tables[self.table].append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("rect", "line", "polyline", "circle", "path", "br", "meta", "img", "input"):
            return
        if tag in ("td", "th") and self.row is not None and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "table":
            self.table, self.row = None, None
        if self.open_ids:
            self.open_ids.pop()

    def handle_data(self, data):
        for i in self.open_ids:
            if i:
                self.text[i] = self.text.get(i, "") + data
        if self.cell is not None:
            self.cell += data


def parse(path):
    d = Dom()
    with open(path, encoding="utf-8") as f:
        d.feed(f.read())
    return d


# ---- the text report of the same run: peak and first largest activation
text = open(tmp + "/report.txt", encoding="utf-8").read()
m = re.search(r"^  peak +([0-9.]+ [KMGT]?i?B)", text, re.M)
text_peak = m.group(1) if m else None
m = re.search(r"^LARGEST ACTIVATIONS\n.*\n  (\S+) ", text, re.M)
text_largest = m.group(1) if m else None
check(text_peak and text_largest, "the text report has a peak (%s) and a largest activation (%s)" % (text_peak, text_largest))

# ---- DOM
dom = parse(tmp + "/dom.html")
ids = {a.get("id") for _, a in dom.elems if a.get("id")}
svg = [a for t, a in dom.elems if t == "svg" and a.get("id") == "memory-map"]
check(len(svg) == 1, "one svg#memory-map")
bufs = [a for t, a in dom.elems if t == "rect" and "buf" in a.get("class", "").split()]
check(len(bufs) > 0, "rect.buf elements: %d" % len(bufs))
keys = ("data-node", "data-name", "data-op", "data-offset", "data-size", "data-birth", "data-death")
broken = [b for b in bufs if not all(k in b for k in keys) or not all(
    b[k].isdigit() for k in ("data-node", "data-offset", "data-size", "data-birth", "data-death"))]
check(not broken, "every rect.buf has numeric data-node/offset/size/birth/death and a name and op",
      "first broken: %r" % (broken[:1],))
check(all(int(b["data-birth"]) <= int(b["data-death"]) for b in bufs if not broken), "rect.buf birth <= death")
for i in ("live-bytes", "lower-bound", "peak", "arena", "details", "verdict"):
    check(i in ids, "#%s exists" % i)
for t in ("memory", "largest", "io", "latency"):
    rows = dom.tables.get(t)
    check(rows is not None and len([r for r in rows if r and any(r)]) >= 2, "table#%s has rows" % t,
          "rows: %r" % (rows,))
mem = {r[0]: r[1] for r in dom.tables.get("memory", []) if len(r) >= 2}
check(text_peak is not None and mem.get("peak") == text_peak,
      "the page's peak equals the text report's", "page %r, text %r" % (mem.get("peak"), text_peak))
largest = dom.tables.get("largest", [])


def same_name(full, shown):
    """The text report elides the middle of long names: 'abc...xyz'."""
    if shown is None or full is None:
        return False
    if "..." not in shown:
        return full == shown
    head, tail = shown.split("...", 1)
    return full.startswith(head) and full.endswith(tail) and len(full) >= len(head) + len(tail)


check(len(largest) >= 2 and same_name(largest[1][0], text_largest),
      "the page's largest activation equals the text report's", "page %r, text %r" % (largest[1:2], text_largest))
check(any(same_name(b.get("data-name"), text_largest) for b in bufs), "the largest activation is drawn as a rect.buf")
lat = [r[0] for r in dom.tables.get("latency", [])[1:] if r]
check(lat == ["h100-sxm", "l4", "cpu-default"], "latency table lists the requested devices", "%r" % (lat,))
check("fits" in dom.text.get("verdict", ""), "verdict says it fits", "%r" % dom.text.get("verdict"))

# ---- hover
hov = parse(tmp + "/hover.dom")
hovered = next((a.get("data-hovered") for t, a in hov.elems if t == "body"), None)
details = hov.text.get("details", "")
check(hovered and hovered in details and "node " in details,
      "hovering the largest buffer shows its details", "hovered %r, #details %r" % (hovered, details))

# ---- labels of the memory map: overlapping or clipped text (reported as
# WARN lines, not failures, until the picture's layout is fixed; make them
# failures by setting TP_STRICT_LAYOUT=1)
import json as _json
import os as _os


def layout(doc, page):
    body = next((a for t, a in doc.elems if t == "body"), {})
    for key, what in (("data-overlaps", "overlapping labels"), ("data-outside", "labels outside the picture")):
        try:
            items = _json.loads(body.get(key, "null"))
        except ValueError:
            items = None
        if items is None:
            bad("%s: measure %s in the browser" % (page, what))
        elif not items:
            ok("%s: no %s in the memory map" % (page, what))
        elif _os.environ.get("TP_STRICT_LAYOUT"):
            bad("%s: %s in the memory map: %s" % (page, what, items[:5]))
        else:
            print("WARN %s: %d %s in the memory map: %s" % (page, len(items), what, items[:5]))


layout(hov, "bundled example")

# ---- over budget
over = parse(tmp + "/over.dom")
layout(over, "demo, over budget")
vclass = next((a.get("class", "") for t, a in over.elems if a.get("id") == "verdict"), "")
vtext = over.text.get("verdict", "")
check("over" in vclass.split() and "exceeds budget 100.0 MiB" in vtext,
      "over-budget page: verdict with the deficit", "class %r, text %r" % (vclass, vtext))

# ---- screenshot
try:
    w, h, bpp, rows = read_png(tmp + "/page.png")
except (OSError, ValueError, TypeError) as e:
    bad("read the screenshot", repr(e))
else:
    check((w, h) == (1280, 1600), "screenshot is 1280x1600", "%dx%d" % (w, h))
    colours = Counter()
    for r in rows:
        for i in range(0, len(r), bpp):
            colours[r[i:i + 3] if bpp >= 3 else r[i:i + 1] * 3] += 1
    white = colours.get(b"\xff\xff\xff", 0)
    frac = 1 - white / float(w * h)
    check(frac >= 0.05, "screenshot is not blank: %.1f%% non-white pixels" % (100 * frac))
    check(len(colours) >= 32, "screenshot has %d distinct colours" % len(colours))
    vivid = sum(n for c, n in colours.items() if max(c) - min(c) >= 60)
    check(vivid >= 2000, "screenshot has colour: %d saturated pixels" % vivid)

    # Fill colours of the larger buffers (drawn at opacity 0.9 over a light
    # background: accept the fill and its blends with white..#eee).
    def hexrgb(s):
        s = s.lstrip("#")
        return tuple(int(s[i:i + 2], 16) for i in (0, 2, 4)) if len(s) == 6 else None

    def near(c, fill):
        for bg in (255, 250, 245, 238):
            if all(abs(c[k] - fill[k]) <= 3 for k in range(3)):
                return True
            if all(abs(c[k] - (0.9 * fill[k] + 0.1 * bg)) <= 3 for k in range(3)):
                return True
        return False

    big = {}
    for b in bufs:
        try:
            area = float(b.get("width", 0)) * float(b.get("height", 0))
        except ValueError:
            continue
        f = hexrgb(b.get("fill", ""))
        if f and area >= 100:
            big[f] = max(big.get(f, 0), area)
    check(len(big) >= 1, "some buffers are large enough to check their colour: %d fills" % len(big))
    for f, area in sorted(big.items(), key=lambda x: -x[1]):
        n = sum(cnt for c, cnt in colours.items() if near(c, f))
        check(n >= min(area * 0.25, 200), "fill #%02x%02x%02x of a %.0f px^2 buffer is on screen (%d pixels)"
              % (f + (area, n)))

print("%d failed in the page checks" % fails)
sys.exit(1 if fails else 0)
PYEOF
"$PY" "$tmp/check.py" "$tmp" >"$tmp/check.out" 2>&1
crc=$?
cat "$tmp/check.out"
pass=$((pass + $(grep -c '^ok ' "$tmp/check.out")))
fails=$((fails + $(grep -c '^FAIL ' "$tmp/check.out")))
if [ "$crc" -ne 0 ] && ! grep -q '^FAIL ' "$tmp/check.out"; then bad "the page checks crashed (exit $crc)"; fi
finish
