"""Build tensorplan's Python package: the extension compiles the C library's sources
(../src, ../include of this repository) together with the binding (python/src/*.c, which
includes only the public header tensorplan.h),
on CPython's stable ABI (abi3, 3.10+). No build dependency beyond setuptools, a C
compiler and the Python headers (Debian: python3-setuptools python3-dev)."""
import glob
import os

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def rel(p):
    return os.path.relpath(p, HERE)


lib_sources = sorted(glob.glob(os.path.join(ROOT, "src", "**", "*.c"), recursive=True))
if not lib_sources:
    raise SystemExit("tensorplan: the C sources (../src) are missing: build from the repository")

native = Extension(
    "tensorplan._native",
    sources=sorted(rel(p) for p in glob.glob(os.path.join(HERE, "src", "*.c")))
    + [rel(p) for p in lib_sources],
    include_dirs=[rel(os.path.join(ROOT, "include")), rel(os.path.join(ROOT, "src"))],
    # ../src on the include path is for the library's own sources; Py_LIMITED_API is set
    # in python/src/native.h
    define_macros=[("_GNU_SOURCE", None)],
    extra_compile_args=["-std=c11", "-O2", "-fvisibility=hidden",
                        "-Werror=implicit-function-declaration", "-Werror=int-conversion"],
    libraries=["m", "dl", "pthread"],
    py_limited_api=True,
)

setup(
    name="tensorplan",
    version="0.1.0",
    description="Will it fit? Memory plans, estimates and latency for ML models, before loading weights",
    packages=["tensorplan"],
    package_data={"tensorplan": ["py.typed"]},
    ext_modules=[native],
    python_requires=">=3.10",
    options={"bdist_wheel": {"py_limited_api": "cp310"}},
)
