import os

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture
def model_path():
    return os.path.join(ROOT, "examples", "models", "mobilenet_v2.onnx")


@pytest.fixture
def root():
    return ROOT
