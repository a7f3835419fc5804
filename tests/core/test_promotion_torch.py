"""Issue 35: every op that combines tensors computes in PyTorch's result dtype (its
`torch.result_type`, with the category rules: a float16 next to an int32 stays float16), or
refuses what PyTorch refuses, in its words. Each op runs on every pair of dtypes, with both
tensors of dims and with one of them 0-d, side by side with PyTorch.

Before: cat, stack (and default_collate through it), the losses, dist, hypot, lerp and clamp
followed numpy's promotion (int32 + float16 is float64 there); matmul and its kin multiplied
two dtypes and bools; in-place ops refused `uint8.add_(int8)` and took `float.sub_(bool)`.
"""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest

import minigrad
from side_by_side import differences, same

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
SHAPES = [((3,), (3,)), ((), (3,)), ((3,), ())]
CASES = [(a, b, sa, sb) for a, b in itertools.product(DTYPES, DTYPES) for sa, sb in SHAPES]


def make(lib, dtype: str, shape: tuple):
    values = np.arange(1, 1 + int(np.prod(shape))).reshape(shape) % 3 + 1
    return lib.tensor(values.tolist(), dtype=getattr(lib, dtype))


def F(lib):
    return lib.nn.functional


COMBINING = {
    "cat": lambda t, a, b: t.cat([a.reshape(-1), b.reshape(-1)]),
    "stack": lambda t, a, b: t.stack([a, b]),
    "default_collate": lambda t, a, b: t.utils.data.default_collate([a, b]),
    "hypot": lambda t, a, b: t.hypot(a, b),
    "xlogy": lambda t, a, b: t.xlogy(a, b),
    "lerp, number weight": lambda t, a, b: t.lerp(a, b, 0.5),
    "lerp, tensor weight": lambda t, a, b: t.lerp(a, a, b),
    "dist": lambda t, a, b: t.dist(a, b),
    "clamp(min, max tensors)": lambda t, a, b: t.clamp(a, min=b, max=b + 1),
    "mse_loss": lambda t, a, b: F(t).mse_loss(a, b),
    "smooth_l1_loss": lambda t, a, b: F(t).smooth_l1_loss(a, b),
    "huber_loss": lambda t, a, b: F(t).huber_loss(a, b),
    "binary_cross_entropy": lambda t, a, b: F(t).binary_cross_entropy(a / 4, b / 4),
    "binary_cross_entropy_with_logits":
        lambda t, a, b: F(t).binary_cross_entropy_with_logits(a, b),
    "dot": lambda t, a, b: t.dot(a, b),
    "a @ b": lambda t, a, b: a @ b,
    "mm": lambda t, a, b: t.mm(a.reshape(1, -1), b.reshape(-1, 1)),
    "add_": lambda t, a, b: a.clone().add_(b),
    "sub_": lambda t, a, b: a.clone().sub_(b),
    "mul_": lambda t, a, b: a.clone().mul_(b),
    "copy_": lambda t, a, b: a.clone().copy_(b),
}


@pytest.mark.parametrize("name", sorted(COMBINING))
def test_an_op_combining_two_dtypes_promotes_as_pytorch(name, torch_mod):
    """Dtype and values, or the error class, for every pair of dtypes (243 cases per op)."""
    fn = COMBINING[name]

    def run(lib, case):
        a, b, sa, sb = case
        return fn(lib, make(lib, a, sa), make(lib, b, sb))
    found = differences(CASES, run, torch_mod, messages=False)
    assert not found, f"{len(found)} of {len(CASES)} differ, e.g. {found[:4]}"


MESSAGES = {
    "stack of float32 and int64 is float32 (the issue's example)":
        lambda t: t.stack([t.ones(2), t.zeros(2, dtype=t.int64)]),
    "collate of float32 and int64 samples": lambda t: t.utils.data.default_collate(
        [t.ones(2), t.zeros(2, dtype=t.int64)]),
    "collate of numpy float16 and int32 numbers is float16":
        lambda t: t.utils.data.default_collate([np.float16(1), np.int32(2)]),
    "mse_loss with an int target is float32": lambda t: F(t).mse_loss(
        t.ones(2), t.tensor([1, 2])),
    "mse_loss of ints": lambda t: F(t).mse_loss(t.tensor([1, 2]), t.tensor([1, 2])),
    "huber_loss writes into its input's dtype": lambda t: F(t).huber_loss(
        t.tensor([1, 2]), t.ones(2)),
    "dot of two dtypes": lambda t: t.dot(t.ones(3), t.ones(3, dtype=t.float64)),
    "mm of two dtypes": lambda t: t.ones(1, 3) @ t.ones(3, 1, dtype=t.float64),
    "mv of two dtypes": lambda t: t.ones(1, 3, dtype=t.float64) @ t.ones(3),
    "bmm of two dtypes": lambda t: t.ones(1, 1, 3) @ t.ones(1, 3, 1, dtype=t.float64),
    "mm of bools": lambda t: t.ones(1, 3, dtype=t.bool) @ t.ones(3, 1, dtype=t.bool),
    "mm shapes": lambda t: t.ones(2, 3) @ t.ones(2, 3),
    "mm of a vector": lambda t: t.mm(t.ones(3), t.ones(3, 1)),
    "mv shapes": lambda t: t.mv(t.ones(2, 2), t.ones(3)),
    "dot shapes": lambda t: t.dot(t.ones(2), t.ones(3)),
    "batched matmul shapes": lambda t: t.ones(2, 2, 2) @ t.ones(2, 3, 2),
    "folded matmul shapes": lambda t: t.ones(2, 2, 2) @ t.ones(3, 2),
    "lerp of two dtypes": lambda t: t.lerp(t.ones(2, dtype=t.float16), t.ones(2), 0.5),
    "lerp with a weight of another dtype": lambda t: t.lerp(t.ones(2), t.ones(2),
                                                            t.ones(2, dtype=t.float64)),
    "lerp of ints with a 0-d float weight": lambda t: t.lerp(t.tensor([1, 2]), t.tensor([3, 4]),
                                                             t.tensor(0.5)),
    "float.sub_(bool)": lambda t: t.ones(2).sub_(t.ones(2, dtype=t.bool)),
    "uint8.add_(int8) wraps": lambda t: t.tensor([250], dtype=t.uint8).add_(
        t.tensor([10], dtype=t.int8)),
    "int.clamp_(float)": lambda t: t.tensor([1, 2]).clamp_(min=0.5),
    "copy_ from a bigger tensor": lambda t: t.tensor(1.0).copy_(t.ones(3)),
    "copy_ from shapes that do not broadcast": lambda t: t.ones(3).copy_(t.ones(2)),
    "cat of nothing": lambda t: t.cat([]),
    "stack of nothing": lambda t: t.stack([]),
    "cat of a 0-d tensor": lambda t: t.cat([t.ones(2), t.tensor(1.0)]),
    "cat of other sizes": lambda t: t.cat([t.ones(2, 2), t.ones(2, 3)]),
    "cat of other dims": lambda t: t.cat([t.ones(2, 2), t.ones(2)]),
    "cat skips a legacy empty tensor, keeping its dtype": lambda t: t.cat(
        [t.ones(0, dtype=t.float64), t.ones(2, 2)]),
    "stack of other sizes": lambda t: t.stack([t.ones(2), t.ones(2), t.ones(3)]),
    "stack of a tensor": lambda t: t.stack(t.ones(2, 2)),
    "stack of a number": lambda t: t.stack([t.ones(()), 1.0]),
    "collate of samples of other sizes": lambda t: t.utils.data.default_collate(
        [t.ones(2), t.ones(3)]),
}


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_the_result_or_the_refusal_is_pytorchs_word_for_word(name, torch_mod):
    ours, theirs = same(MESSAGES[name], torch_mod)
    assert ours == theirs


def test_a_joined_gradient_goes_back_in_each_inputs_dtype(torch_mod):
    """cat/stack of float32 and float64: each piece of the gradient is cast back to its
    input's dtype on the way, so a hook on a float32 input sees float32 (as in PyTorch)."""
    seen = []
    for lib in (minigrad, torch_mod):
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2, dtype=lib.float64, requires_grad=True)
        a2 = a * 1
        hooked = []
        a2.register_hook(lambda g, hooked=hooked: hooked.append(str(g.dtype).split(".")[-1]))
        (lib.cat([a2, b]).sum() + lib.stack([a2, b]).sum()).backward()
        seen.append((hooked, str(a.grad.dtype).split(".")[-1], a.grad.tolist(), b.grad.tolist()))
    assert seen[0] == seen[1]



@pytest.mark.parametrize("op", ["mm", "matmul", "dot", "mv", "bmm"])
def test_a_product_of_an_unpickled_array_is_computed(op, torch_mod):
    """An array read back from a pickle (as the course's grader sends them) has a dtype object
    of its own, equal to numpy's float64: the product is computed, as in PyTorch (minigrad
    once refused it as 'not implemented for Double')."""
    shapes = {"mm": ((2, 2), (2, 2)), "matmul": ((2, 2), (2,)), "dot": ((2,), (2,)),
              "mv": ((2, 2), (2,)), "bmm": ((1, 2, 2), (1, 2, 2))}[op]
    a, b = (pickle.loads(pickle.dumps(np.ones(s))) for s in shapes)
    assert a.dtype is not np.dtype(np.float64)  # (what the case is about)

    def run(t):
        return getattr(t, op)(t.tensor(a), t.tensor(b))
    ours, theirs = same(run, torch_mod)
    assert ours == theirs and ours[0] == "ok", (ours, theirs)
