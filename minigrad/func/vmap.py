"""`vmap(f)`: f written for one sample, run over a batch, with PyTorch's `in_dims`,
`out_dims`, `randomness` and `chunk_size` and PyTorch's errors.

How minigrad runs it (a documented difference: PyTorch pushes the whole batch through each
op at once with a "batching rule" per op, and falls back to a loop over the samples for ops
that have none): f first runs once on the whole batch through minigrad's batching rules
(`batching.py` tries, `batched.py` has the rules: elementwise ops, reductions, matmul,
reshapes); the moment f reaches anything without a rule, that attempt is dropped and f runs
once per sample instead, the results stacked along `out_dims`. Both give the same values;
`chunk_size` changes nothing here (the passes are not batched). The per-sample loop is also what
makes `jacrev` (one backward pass per output element) and `jacfwd` (one forward-mode pass per
input element) count their passes one by one; a trace says which way a vmap ran and why.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad import ops
from minigrad.autograd.functional.passes import note, transform
from minigrad.autograd.tensor import Tensor
from minigrad.func import batching, pytree
from minigrad.func.batched import Batched
from minigrad.func.batching import RANDOM_IN_ERROR_MODE
from minigrad.surface import factories


def vmap(func: Callable, in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable:
    """f over a batch: `in_dims` says which dim of each argument is the batch (None: the
    same value for every sample), `out_dims` where the batch dim goes in each output."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got "
                         f"{chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return _vmap(func, in_dims, out_dims, randomness, args, kwargs)
    return wrapped


def name_of(func: Any) -> str:
    """How PyTorch names f in vmap's errors."""
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({name_of(func.func)}, ...)"
    return repr(func)


@transform("func.vmap")
def _vmap(func: Callable, in_dims: Any, out_dims: Any, randomness: str, args: tuple,
          kwargs: dict) -> Any:
    _check_out_dims(out_dims, func)
    size, flat_in_dims, flat_args, spec = _batched_inputs(in_dims, args, func)
    outcome = batching.attempt(func, flat_args, flat_in_dims, spec, kwargs, size, randomness)
    if outcome.done:
        note(how="batched", samples=size)
        try:
            return _outputs(outcome.outputs, out_dims, func, size, outcome.level)
        finally:
            outcome.level.active = False  # (what f kept of its Batched tensors has escaped)
    note(how="per sample", samples=size, because=outcome.because, kind=outcome.kind)
    return _per_sample(func, flat_args, flat_in_dims, spec, kwargs, size, out_dims, randomness)


def _check_out_dims(out_dims: Any, func: Callable) -> None:
    if isinstance(out_dims, int):
        return
    for d in pytree.flatten(out_dims)[0]:
        if not (d is None or isinstance(d, int)):
            raise ValueError(f"vmap({name_of(func)}, ..., out_dims={out_dims}): `out_dims` "
                             "must be an int, None or a python collection of ints representing "
                             "where in the outputs the vmapped dimension should appear.")


def _batched_inputs(in_dims: Any, args: tuple, func: Callable) -> tuple:
    """(batch size, in_dim per flat argument, the flat arguments, their nesting), checked."""
    where = f"vmap({name_of(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, int | tuple):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) "
                         "tuple matching the structure of inputs, got: "
                         f"{type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name_of(func)})(<inputs>): got no inputs. Maybe you forgot "
                         "to add inputs, or you are trying to vmap over a function with no "
                         "inputs. The latter is unsupported.")
    flat_args, spec = pytree.flatten(args)
    flat_in_dims = pytree.broadcast_prefix(in_dims, spec)
    if flat_in_dims is None:
        raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`. "
                         f"in_dims has structure {pytree.flatten(in_dims)[1]} but inputs has "
                         f"structure {spec}.")
    for i, (arg, d) in enumerate(zip(flat_args, flat_in_dims)):
        if d is not None and not isinstance(d, int):
            raise ValueError(f"{where}: Got in_dim={d} for an input but in_dim must be either "
                             "an integer dimension or None.")
        if d is not None and not isinstance(arg, Tensor):
            raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of type "
                             f"{type(arg)}. We cannot vmap over non-Tensor arguments, please "
                             "use None as the respective in_dim")
        if d is not None and not -arg.dim() <= d < arg.dim():
            raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a "
                             f"Tensor of dimensionality {arg.dim()} so expected in_dim to "
                             f"satisfy -{arg.dim()} <= in_dim < {arg.dim()}.")
        if d is not None and d < 0:
            flat_in_dims[i] = d % arg.dim()
    sizes = [arg.shape[d] for arg, d in zip(flat_args, flat_in_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0], flat_in_dims, flat_args, spec


def _per_sample(func: Callable, flat_args: list, flat_in_dims: list, spec: Any, kwargs: dict,
                size: int, out_dims: Any, randomness: str) -> Any:
    """f once per sample (once on zeros for an empty batch, to learn its outputs' shapes);
    the results stacked along out_dims."""
    rng = factories.generator().bit_generator
    start = rng.state
    results = []
    for b in range(max(size, 1)):
        if randomness == "same":
            rng.state = start  # every sample draws the same numbers
        sample = [a if d is None else _select(a, d, b, size) for a, d in zip(flat_args,
                                                                            flat_in_dims)]
        results.append(func(*pytree.unflatten(sample, spec), **kwargs))
        if randomness == "error" and rng.state != start:
            rng.state = start  # (the numbers drawn are given back)
            raise RuntimeError(RANDOM_IN_ERROR_MODE)
    return _outputs(results, out_dims, func, size)


def _select(arg: Tensor, d: int, b: int, size: int) -> Tensor:
    if size == 0:
        shape = arg.shape[:d] + arg.shape[d + 1:]
        return Tensor._make(np.zeros(shape, arg.array.dtype), None, 0)
    return arg.select(d, b)


def _outputs(results: list, out_dims: Any, func: Callable, size: int, level: Any = None
             ) -> Any:
    """The samples' outputs as batched outputs: stacked along each output's out_dim; or,
    from the batched run (`level`), its one result's batch dim moved there."""
    flat = [pytree.flatten(r) for r in results]
    spec = flat[0][1]
    name = name_of(func)
    if isinstance(results[0], Tensor):
        if isinstance(out_dims, int) or out_dims is None:
            flat_out_dims = [out_dims]
        elif isinstance(out_dims, tuple) and len(out_dims) == 1:
            flat_out_dims = list(out_dims)
        else:
            flat_out_dims = None
    else:
        flat_out_dims = pytree.broadcast_prefix(out_dims, spec)
    if flat_out_dims is None:
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                         "compatible with the structure of `outputs`. out_dims has structure "
                         f"{pytree.flatten(out_dims)[1]} but outputs has structure {spec}.")
    outs = []
    for i, d in enumerate(flat_out_dims):
        values = [leaves[i] for leaves, _ in flat]
        outs.append(_one_output(values, d, name, size) if level is None
                    else _one_batched_output(values[0], d, name, size, level))
    return pytree.unflatten(outs, spec)


def _one_output(values: list, d: int | None, name: str, size: int) -> Any:
    """One output of the per-sample run: the samples' values stacked along d."""
    first = values[0]
    if d is None:
        if isinstance(first, Tensor) and any(v is not first and not _same(v, first)
                                             for v in values[1:]):
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor "
                             "when out_dim is None")
        return first
    _check_tensor(first, name)
    stacked = ops.stack(values, dim=d)
    if size == 0:  # (f ran once on zeros, to learn the shapes: keep none of its values)
        dd = d % stacked.ndim
        return Tensor._make(stacked.array[(slice(None),) * dd + (slice(0, 0),)], None, 0)
    return stacked


def _one_batched_output(out: Any, d: int | None, name: str, size: int, level: Any) -> Any:
    """One output of the batched run: its batch dim moved to d (one that does not depend on
    the batch is the same for every sample: expanded along d)."""
    mine = isinstance(out, Batched) and out.level is level
    if d is None:
        if mine:
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor "
                             "when out_dim is None")
        return out
    _check_tensor(out, name)
    if mine:
        return out.moved_to(d)
    expanded = ops.stack([out], dim=d)  # (checks d, as stacking would)
    shape = list(expanded.shape)
    shape[d] = size
    return expanded.expand(*shape)


def _check_tensor(out: Any, name: str) -> None:
    if not isinstance(out, Tensor):
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                         f"{type(out)}. Did you mean to set out_dims= to None for output?")


def _same(a: Tensor, b: Tensor) -> bool:
    """Equal values, as a per-sample run sees an output that does not depend on the batch."""
    return a.shape == b.shape and bool(np.array_equal(a.array, b.array))
