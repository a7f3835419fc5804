"""`jacrev`, `jacfwd` and `hessian`, built as PyTorch builds them: on vjp, jvp and vmap.

- `jacrev(f)(x)`: one forward pass (vjp records the graph), then `vmap(vjp_fn)` over the
  unit vectors of the output: row j of J is e_jᵀJ, one backward pass per output element.
- `jacfwd(f)(x)`: `vmap(jvp)` over the unit vectors of the input: column k of J is J e_k,
  one forward-mode pass per input element.
- `hessian(f)` = `jacfwd(jacrev(f))`: forward mode over reverse mode.

So for f: Rⁿ → Rᵐ, jacrev costs m passes and jacfwd n: a wide function (a loss, m = 1)
wants jacrev, a tall one (m ≫ n) jacfwd. (PyTorch's vmap runs those passes as one batched
pass; minigrad's runs them one after another, which a trace counts.)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad import ops
from minigrad.autograd.functional.passes import transform
from minigrad.autograd.tensor import Tensor
from minigrad.func import argnums as arg
from minigrad.func import pytree
from minigrad.func.forward import jvp_with_argnums
from minigrad.func.grads import vjp_with_argnums
from minigrad.func.vmap import vmap


def basis(tensors: list, chunk_size: int | None = None) -> list[list[Tensor]]:
    """The unit vectors of all `tensors` together, in chunks of `chunk_size` rows: per chunk
    one tensor per input, of shape (rows, *that tensor's shape), the 1s on the diagonal of the
    whole (rows × total elements) block."""
    numels = [t.numel() for t in tensors]
    total = sum(numels)
    size = chunk_size if chunk_size and chunk_size < total else total
    chunks = []
    for start in range(0, max(total, 1), max(size, 1)):
        rows = min(size, total - start)
        eye = np.eye(rows, total, start, dtype=tensors[0].array.dtype)
        parts, offset = [], 0
        for t, n in zip(tensors, numels):
            part = np.ascontiguousarray(eye[:, offset:offset + n].reshape(rows, *t.shape))
            parts.append(Tensor._make(part, None, 0))
            offset += n
        chunks.append(parts)
    return chunks


def jacrev(func: Callable, argnums: Any = 0, *, has_aux: bool = False,
           chunk_size: int | None = None, _preallocate_and_copy: bool = False) -> Callable:
    """The Jacobian of func with respect to the arguments at `argnums`, by reverse mode."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    @transform("func.jacrev")
    def wrapper_fn(*args: Any) -> Any:
        found = vjp_with_argnums(func, *args, argnums=argnums, has_aux=has_aux)
        output, vjp_fn = found[0], found[1]
        flat_output, output_spec = pytree.flatten(output)
        flat_primals, primals_spec = pytree.flatten(arg.sliced(args, argnums))
        rows: list[list] = []
        for chunk in basis(flat_output, chunk_size):
            cotangents = pytree.unflatten(chunk, output_spec)
            if chunk_size == 1:
                result = vjp_fn(pytree.unflatten([c[0] for c in chunk], output_spec))
                rows.append([r.unsqueeze(0) for r in pytree.flatten(result)[0]])
            else:
                rows.append(pytree.flatten(vmap(vjp_fn)(cotangents))[0])
        per_input = [parts[0] if len(parts) == 1 else ops.cat(parts, 0)
                     for parts in zip(*rows)]
        by_input = [[part.reshape(tuple(out.shape) + tuple(primal.shape))
                     for part, out in zip(_split(whole, flat_output, 0), flat_output)]
                    for whole, primal in zip(per_input, flat_primals)]
        jac = _by_output(by_input, flat_output, primals_spec, argnums, output_spec)
        return (jac, found[2]) if has_aux else jac
    return wrapper_fn


def _split(whole: Tensor, like: list, dim: int) -> list:
    """`whole` cut along dim into one piece per tensor of `like`, as long as its numel."""
    pieces, start = [], 0
    for t in like:
        n = t.numel()
        key = (slice(start, start + n),) if dim == 0 else (..., slice(start, start + n))
        pieces.append(whole[key])
        start += n
    return pieces


def _by_output(by_input: list, flat_output: list, primals_spec: Any, argnums: Any,
               output_spec: Any) -> Any:
    """Jacobian blocks [input][output] arranged as PyTorch returns them: the outputs'
    nesting outside, the inputs' inside (one input, for an int argnums)."""
    per_output = [pytree.unflatten([by_input[i][o] for i in range(len(by_input))],
                                   primals_spec) for o in range(len(flat_output))]
    if isinstance(argnums, int):
        per_output = [p[0] for p in per_output]
    return pytree.unflatten(per_output, output_spec)


def jacfwd(func: Callable, argnums: Any = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable:
    """The Jacobian of func with respect to the arguments at `argnums`, by forward mode."""
    @functools.wraps(func)
    @transform("func.jacfwd")
    def wrapper_fn(*args: Any) -> Any:
        primals = args if argnums is None else arg.sliced(args, argnums)
        flat_primals, primals_spec = pytree.flatten(primals)
        tangents = pytree.unflatten(basis(flat_primals)[0], primals_spec)

        def push_jvp(tangents: Any) -> Any:
            found = jvp_with_argnums(func, args, tangents, argnums, has_aux=has_aux)
            return (found[1], found[2]) if has_aux else found[1]

        results = vmap(push_jvp, randomness=randomness)(tangents)
        aux = None
        if has_aux:
            results, aux = results
            leaves, aux_spec = pytree.flatten(aux)
            aux = pytree.unflatten([a[0] for a in leaves], aux_spec)
        jac_outs, spec = pytree.flatten(results)
        blocks = []
        for jac_out in jac_outs:
            parts = _split(jac_out.movedim(0, -1), flat_primals, -1)
            blocks.append(pytree.unflatten(
                [part.squeeze(-1) if not primal.shape else part.unflatten(-1, primal.shape)
                 for part, primal in zip(parts, flat_primals)], primals_spec))
        if isinstance(argnums, int):
            blocks = [b[0] for b in blocks]
        jac = pytree.unflatten(blocks, spec)
        return (jac, aux) if has_aux else jac
    return wrapper_fn


def hessian(func: Callable, argnums: Any = 0) -> Callable:
    """The matrix of second derivatives: jacfwd(jacrev(func)), forward over reverse."""
    inner = jacfwd(jacrev(func, argnums), argnums)

    @functools.wraps(func)
    @transform("func.hessian")
    def wrapper_fn(*args: Any) -> Any:
        return inner(*args)
    return wrapper_fn
