"""OpenBLAS's own choice of kernels on this machine, and the one to ask for when it chose wrong.
Run as `python -m hpcaas.openblas`, it only loads libopenblas.so.0: with OPENBLAS_VERBOSE=2 the
library prints the core it detected, which it does once, as it loads (so in a process of its own)."""

import ctypes
import os
import re
import subprocess
import sys

from hpcaas import probe


def openblas_env() -> dict:
    """{OPENBLAS_CORETYPE: kernel} when OpenBLAS's own detection falls back to its generic
    Prescott kernels on a processor with wider vectors: OpenBLAS 0.3.21 (Debian 12) does so on
    processors it does not know (a Sapphire Rapids KVM guest), and runs DGEMM ~4x below what the
    core can (make validate measured 15 % of the peak against 65 % with SkylakeX). Empty when
    OpenBLAS is absent or its detection is right."""
    proc = subprocess.run(
        [sys.executable, "-m", "hpcaas.openblas"],
        capture_output=True,
        text=True,
        env={**{k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}, "OPENBLAS_VERBOSE": "2"},
    )
    detected = re.search(r"Core:\s*(\S+)", proc.stdout + proc.stderr)
    if not detected or detected[1] != "Prescott":
        return {}
    flags = probe.cpu_flags()
    kernel = "SkylakeX" if "avx512f" in flags else "Haswell" if "avx2" in flags else None
    return {"OPENBLAS_CORETYPE": kernel} if kernel else {}


if __name__ == "__main__":
    ctypes.CDLL("libopenblas.so.0")
