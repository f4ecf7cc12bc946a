"""The notebook-style example runs end to end (on the bundled model and on an exported
one), and the README's four lines do what they say."""
import os
import subprocess
import sys

from conftest import fixture_model


def run_example(root, *args):
    r = subprocess.run([sys.executable, os.path.join(root, "python", "examples", "quickstart.py"),
                        *args], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_quickstart_runs(root, tmp_path):
    html = tmp_path / "report.html"
    out = run_example(root, "--html", str(html))
    assert "largest batch that fits" in out and "choice: h100-sxm" in out
    assert "TP_ERR_PARSE at offset" in out
    assert html.read_text().startswith("<!DOCTYPE html>")


def test_quickstart_on_an_exported_model(root):
    out = run_example(root, fixture_model("resnet50"))
    assert "largest batch that fits" in out


def test_readme_lines(root, tmp_path):
    readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    start = readme.index("```python", readme.index("## From Python")) + len("```python")
    code = readme[start:readme.index("```", start)]
    lines = [line for line in code.strip().splitlines()]
    assert len(lines) == 4, lines
    code = code.replace("model.onnx", os.path.join(root, "examples", "models",
                                                   "mobilenet_v2.onnx"))
    code = code.replace("report.html", str(tmp_path / "report.html"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "report.html").exists()
