"""Every op of the table on the meta device, side by side with PyTorch 2.13: the same call on
meta inputs (index and mask tensors among the params moved there too) gives outputs of the same
shapes and dtypes on the meta device, and its backward gives the inputs meta gradients of their
shapes; or both refuse. Run one op with `pytest tests/ops/test_ops_table_meta.py -k "[mul]"`.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import minigrad
from minigrad.testing import strategies as mst
from minigrad.testing.op_table import OPS

# Where the two differ on purpose (tutorials/differences.md, "The meta device"): PyTorch refuses
# a CPU tensor of indices, class targets or a boolean mask next to meta tensors in these (the
# op table passes them as lists, which become CPU tensors); minigrad takes integer and boolean
# CPU tensors next to meta ones.
CPU_INDICES_TAKEN = {
    "index_select", "index_add", "index_fill", "index_fill_", "index_fill_tensor",
    "repeat_interleave_tensor", "nll_loss", "nll_loss_nd", "cross_entropy",
    "cross_entropy_smoothed", "where", "masked_fill", "masked_fill_", "masked_fill_tensor",
    "masked_scatter",
}
IDS = [s.name for s in OPS]
CASES = settings(max_examples=3, deadline=None, derandomize=True,
                 suppress_health_check=list(HealthCheck))


def described(out: Any) -> Any:
    """An output as (device, shape, dtype) for tensors, through tuples; its type otherwise."""
    if isinstance(out, tuple | list):
        return tuple(described(o) for o in out)
    if hasattr(out, "device") and hasattr(out, "dtype"):
        return str(out.device), tuple(out.shape), str(out.dtype).split(".")[-1]
    return type(out).__name__


def on_meta(lib: Any, value: Any) -> Any:
    if isinstance(value, minigrad.Tensor):
        return lib.tensor(value.array).to("meta") if lib is not minigrad else value.to("meta")
    return value


def run(lib: Any, case: mst.OpCase) -> Any:
    """The call on meta inputs, then its backward: what each gives, or the error's type."""
    spec = case.spec
    inputs = [on_meta(lib, t.detach()).requires_grad_(t.requires_grad) for t in case.tensors]
    params = {k: on_meta(lib, v) for k, v in case.params.items()}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = spec.call_torch(lib, *inputs, **params) if lib is not minigrad else \
                spec.fn(*inputs, **params)
            first = out[0] if isinstance(out, tuple | list) else out
            if getattr(first, "requires_grad", False):
                first.sum().backward()
    except (RuntimeError, NotImplementedError) as error:
        return type(error).__name__
    return described(out), tuple(described(t.grad) if t.grad is not None else None
                                 for t in inputs)


@pytest.mark.parametrize("spec", OPS, ids=IDS)
def test_the_op_on_meta_gives_torchs_shapes_and_dtypes(spec, torch_mod) -> None:
    @CASES
    @given(case=mst.op_cases(spec))
    def check(case: mst.OpCase) -> None:
        ours, theirs = run(minigrad, case), run(torch_mod, case)
        if spec.name in CPU_INDICES_TAKEN and theirs == "RuntimeError":
            assert ours[0][0] == "meta"  # (minigrad takes the CPU indices: a meta result)
            return
        assert ours == theirs

    check()


def test_the_differences_kept_are_still_differences() -> None:
    assert CPU_INDICES_TAKEN <= set(IDS)
