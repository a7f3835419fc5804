"""`jvp(f, primals, tangents)`: forward mode as a transform of functions.

f runs once on dual numbers (`minigrad.autograd.forward_ad`): each primal carries its
tangent, every op pushes the tangent forward with its JVP rule beside computing its value,
and the outputs come back with J·tangent attached. One forward pass, whatever the size of
the output: what `jacfwd` calls once per input element, through vmap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minigrad.autograd import forward_ad
from minigrad.autograd.functional.passes import transform
from minigrad.autograd.tensor import Tensor
from minigrad.func import argnums as arg
from minigrad.func import pytree
from minigrad.func.grads import check_outputs
from minigrad.func.levels import Level, check_aux, per_sample_only, split_aux, zeros_like

JVP = "jvp(f, primals, tangents)"


def jvp(func: Callable, primals: Any, tangents: Any, *, strict: bool = False,
        has_aux: bool = False) -> tuple:
    """(func(*primals), J·tangents) (and aux): one forward-mode pass."""
    return jvp_with_argnums(func, primals, tangents, None, strict=strict, has_aux=has_aux)


def _tensors_only(flat: list, argname: str) -> None:
    if not flat:
        raise RuntimeError(f"{JVP}: Expected {argname} to contain at least one Tensor.")
    for x in flat:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"{JVP}: Expected {argname} to only contain Tensors, got "
                               f"{type(x)}")


@transform("func.jvp")
def jvp_with_argnums(func: Callable, primals: Any, tangents: Any, argnums: Any, *,
                     strict: bool = False, has_aux: bool) -> tuple:
    """jvp with tangents for the primals at `argnums` only (all of them when None)."""
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{JVP}: Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    diff_args = primals if argnums is None else arg.sliced(primals, argnums)
    flat_primals, primals_spec = pytree.flatten(diff_args)
    flat_tangents, tangents_spec = pytree.flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(
            f"{JVP}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {primals_spec} and tangents with structure {tangents_spec}")
    _tensors_only(flat_primals, "primals")
    _tensors_only(flat_tangents, "tangents")
    per_sample_only((primals, tangents), "jvp", kind="forward")
    scope = Level()  # (only to hand back results cut from graphs of inner transforms)
    level = forward_ad.push_level()  # (a level of its own: jvp of jvp nests)
    try:
        flat_duals = [forward_ad.make_dual(p, t, level=level)
                      for p, t in zip(flat_primals, flat_tangents)]
        duals = pytree.unflatten(flat_duals, primals_spec)
        if argnums is not None:  # (sliced as a tuple, one tangent each: an int takes one)
            duals = arg.replaced(primals, duals[0] if isinstance(argnums, int) else duals,
                                 argnums)
        result, aux = split_aux(func(*duals), has_aux, JVP)
        if has_aux:
            leaves, aux_spec = pytree.flatten(check_aux(aux))
            aux = pytree.unflatten([forward_ad.unpack_dual(a, level=level).primal
                                    for a in leaves], aux_spec)
        flat_out, spec = pytree.flatten(result)
        check_outputs(flat_out, JVP)
        pairs = [_unpack(o, strict, level) for o in flat_out]
    finally:
        forward_ad.pop_level(level)
    outs = scope.lower(pytree.unflatten([p for p, _ in pairs], spec))
    tangents_out = scope.lower(pytree.unflatten([t for _, t in pairs], spec))
    return (outs, tangents_out, aux) if has_aux else (outs, tangents_out)


def _unpack(dual: Any, strict: bool, level: int) -> tuple:
    """(primal, tangent) of one output; zeros for an output that does not depend on the
    primals (or, with strict, PyTorch's error)."""
    primal, tangent = forward_ad.unpack_dual(dual, level=level)
    if tangent is None:
        if strict:
            raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is "
                               "independent of the inputs. This is not allowed with "
                               "strict=True.")
        tangent = zeros_like(primal)
    return primal, tangent
