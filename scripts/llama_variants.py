"""llama.cpp's CPU backend variants (node-llama-cpp's prebuilt GGML_CPU_ALL_VARIANTS): ggml loads
the best one for the CPU from the folder of the executable's real path, or of the library that
loads them. On a CPU with AMX that is its AMX variant; a folder without it makes ggml take the
next one (an AVX-512 variant). Shared by scripts/llm_truth.py and scripts/llm_speed.py."""
import os
import shutil
import tempfile

# the variants built with AMX (sapphirerapids only)
AMX_VARIANTS = ("libggml-cpu-sapphirerapids.so",)


def folder_without_amx(src, copy=()):
    """A new temporary folder (the caller removes it) holding links to the files of `src` but
    the AMX variants; the names in `copy` are copied instead (an executable: a link would
    resolve to `src`, where ggml would find the AMX variant again)."""
    d = tempfile.mkdtemp(prefix="tp-llm-noamx.")
    for f in os.listdir(src):
        if f in AMX_VARIANTS:
            continue
        p = os.path.join(os.path.abspath(src), f)
        if f in copy:
            shutil.copy2(p, os.path.join(d, f))
        else:
            os.symlink(os.path.realpath(p), os.path.join(d, f))
    return d
