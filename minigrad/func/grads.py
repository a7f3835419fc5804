"""`grad`, `grad_and_value` and `vjp`: reverse mode as transforms of functions.

`grad(f)(x)` is what `f(x).backward()` leaves in `x.grad`, returned instead: f runs once on
fresh inputs (levels.py), and one backward pass from its scalar output gives the gradient.
`vjp(f, x)` runs f once and hands back a function that runs one backward pass per call,
seeded with the cotangent it is given: vᵀJ, a row of J when v is a unit vector (what
`jacrev` calls once per output element, through vmap).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from minigrad import autograd
from minigrad.autograd.functional.passes import transform
from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled
from minigrad.autograd.tensor import Tensor
from minigrad.func import argnums as arg
from minigrad.func import pytree
from minigrad.func.levels import Level, check_aux, per_sample_only, split_aux, zeros_like


def grad(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """A function that returns the gradient of func's scalar output with respect to the
    arguments at `argnums` (and func's aux output, with `has_aux`)."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        grads, (_, aux) = _grad_and_value(func, argnums, has_aux, args, kwargs)
        return (grads, aux) if has_aux else grads
    return wrapper


def grad_and_value(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """Like `grad`, returning (gradient, func's output) (or (gradient, (output, aux)))."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        grads, (value, aux) = _grad_and_value(func, argnums, has_aux, args, kwargs)
        return (grads, (value, aux)) if has_aux else (grads, value)
    return wrapper


WHO = "grad_and_value(f)(*args)"


@transform("func.grad")
def _grad_and_value(func: Callable, argnums: Any, has_aux: bool, args: tuple,
                    kwargs: dict) -> tuple:
    per_sample_only((args, kwargs), "grad")
    with Level() as level, enable_grad():
        diff = level.differentiable_tree(arg.sliced(args, argnums, as_tuple=False))
        output, aux = split_aux(func(*arg.replaced(args, diff, argnums), **kwargs), has_aux,
                                WHO)
        if not isinstance(output, Tensor):
            raise RuntimeError(f"{WHO}: Expected f(*args) to return a Tensor, got "
                               f"{type(output)}")
        if output.dim() != 0:
            raise RuntimeError(f"{WHO}: Expected f(*args) to return a scalar Tensor, got "
                               f"tensor with {output.dim()} dims. Maybe you wanted to use the "
                               "vjp or jacrev APIs instead?")
        flat_diff, spec = pytree.flatten(diff)
        grads = backward_pass((output,), flat_diff, None, level.keeps_graph(output))
        return (level.lower(pytree.unflatten(list(grads), spec)),
                (level.lower(output), level.lower(check_aux(aux)) if has_aux else None))


def backward_pass(outputs: tuple, inputs: list, cotangents: Any, create_graph: bool,
                  retain_graph: bool | None = None) -> tuple:
    """One backward pass from the outputs that require grad, seeded with the cotangents;
    zeros for an input nothing reaches (functorch's `_autograd_grad`)."""
    if cotangents is None:
        cotangents = [None] * len(outputs)
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if not pairs:
        return tuple(zeros_like(x) for x in inputs)
    found = autograd.grad([o for o, _ in pairs], inputs, [c for _, c in pairs],
                          retain_graph=retain_graph, create_graph=create_graph,
                          allow_unused=True)
    return tuple(zeros_like(x) if g is None else g for g, x in zip(found, inputs))


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """(func(*primals), vjp_fn) (and aux): `vjp_fn(v)` is vᵀJ, one backward pass a call."""
    return vjp_with_argnums(func, *primals, argnums=None, has_aux=has_aux)


@transform("func.vjp")
def vjp_with_argnums(func: Callable, *primals: Any, argnums: Any = None,
                     has_aux: bool = False) -> tuple:
    """vjp with respect to the primals at `argnums` only (all of them when None)."""
    per_sample_only(primals, "vjp")
    with Level() as level, enable_grad():
        if argnums is None:
            diff = level.differentiable_tree(primals)
            primals = diff
        else:
            diff = level.differentiable_tree(arg.sliced(primals, argnums, as_tuple=False))
            primals = arg.replaced(primals, diff, argnums)
        out, aux = split_aux(func(*primals), has_aux, "vjp(f, *primals)")
        if has_aux:
            aux = level.lower(check_aux(aux))
        flat_out, out_spec = pytree.flatten(out)
        check_outputs(flat_out, "vjp(f, *primals)")
        flat_diff, diff_spec = pytree.flatten(diff)
        results = level.lower(out)
        for o in flat_out:
            if not o.is_floating_point():
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or "
                                   f"complex Tensors, got Tensor with dtype {o.dtype}")

    def vjp_fn(cotangents: Any, retain_graph: bool = True, create_graph: bool | None = None
               ) -> Any:
        flat_cot, cot_spec = pytree.flatten(cotangents)
        per_sample_only(flat_cot, "vjp_fn")
        if cot_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure "
                f"of outputs to the function. cotangents: {pytree.pprint(cot_spec)}, primal "
                f"output: {pytree.pprint(out_spec)}")
        if create_graph is None:
            create_graph = is_grad_enabled() and level.reaches_outside((flat_out, flat_cot))
        grads = backward_pass(tuple(flat_out), flat_diff, flat_cot, create_graph,
                              retain_graph=retain_graph)
        return level.lower(pytree.unflatten(list(grads), diff_spec), is_grad_enabled())

    return (results, vjp_fn, aux) if has_aux else (results, vjp_fn)


def check_outputs(flat: list, api: str) -> None:
    """functorch's assert_non_empty_tensor_output."""
    if (len(flat) == 1 and flat[0] is None) or not flat:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output "
                           f"(got output = {flat})")
    for o in flat:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(o)}")
