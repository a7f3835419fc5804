"""Converting a tensor that requires grad to a Python float warns as PyTorch does: once per
process, for float() and complex() (and so math.exp(t)), not for int(), item() or bool(),
nor under no_grad (LBFGS's step converts its loss there).
Each case runs in a fresh process (the warning's once is per process), then calls float(t):
exactly one warning either way."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROGRAM = """
import math, warnings
warnings.simplefilter("always")
import {lib} as torch
t = torch.tensor(2.5, requires_grad=True)
{call}
float(t)
"""


@pytest.mark.parametrize("call", ["float(t)", "complex(t)", "math.exp(t)", "float(t * 2)",
                                  "int(t)", "t.item()", "bool(t)", "t.tolist()",
                                  "float(torch.tensor(1.0))",
                                  "with torch.no_grad(): float(t)  # (no warning there)"])
def test_which_conversions_warn_and_how_often_is_torchs(call, torch_mod):
    said = []
    for lib in ("minigrad", "torch"):
        done = subprocess.run([sys.executable, "-c", PROGRAM.format(lib=lib, call=call)],
                              capture_output=True, text=True, timeout=300, check=True)
        said.append([line.split(": ", 1)[1] for line in done.stderr.splitlines()
                     if "UserWarning" in line])
    assert said[0] == said[1] == ["UserWarning: Converting a tensor with requires_grad=True to "
                                  "a scalar may lead to unexpected behavior."]
