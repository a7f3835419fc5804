"""`minigrad.autograd.functional`: derivatives of whole functions, as PyTorch's
`torch.autograd.functional` computes them: `vjp`, `jvp`, `jacobian`, `hessian`, `hvp`, `vhp`.

Each one calls the function once on fresh inputs (cut from the caller's graph, or aliased to it
with `create_graph=True`) and runs backward passes through what it recorded. How many:

- `vjp(f, x, v)`: one backward pass, vᵀJ (a row of gradients: `y.backward(v)` without `.grad`);
- `jvp(f, x, v)`: J v by the "double backward trick", as PyTorch's does: two backward passes,
  the second through the first (`minigrad.func.jvp` uses forward mode instead: one pass);
- `jacobian(f, x)`: one backward pass per output element (reverse mode), or one forward-mode
  pass per input element (`strategy="forward-mode"`);
- `hessian(f, x)`: the Jacobian of the gradient: one backward pass for the gradient, then one
  per input element through it;
- `vhp(f, x, v)` = vᵀH: two backward passes; `hvp(f, x, v)` = H v: three (the trick again).

Signatures, return shapes and errors are PyTorch 2.13's. Where minigrad differs:
`vectorize=True` gives the same values by the same passes, one after another (PyTorch batches
them with vmap); minigrad says so in the trace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minigrad.autograd.functional import checks as c
from minigrad.autograd.functional.jacobians import hessian, jacobian
from minigrad.autograd.functional.passes import transform
from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

V_FOR_OUTPUT = ("The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element.")
V_FOR_INPUT = ("The vector v can only be None if the input to the user-provided function is a "
               "single Tensor with a single element.")


@transform("autograd.functional.vjp")
def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """(func(inputs), vᵀ J): the vector-Jacobian product, one backward pass seeded with v."""
    with enable_grad():
        is_inputs_tuple, inputs = c.as_tuple(inputs, "inputs", "vjp")
        inputs = c.grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = c.outputs_of(func, inputs, "vjp")
        c.check_requires_grad(outputs, "outputs", strict=strict)
        v = c.read_v(v, outputs, is_outputs_tuple, create_graph, "vjp", V_FOR_OUTPUT)
    result = _last_pass(outputs, inputs, v, inputs, strict, create_graph, "back")
    return _results(outputs, is_outputs_tuple, result, is_inputs_tuple, create_graph)


@transform("autograd.functional.jvp")
def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """(func(inputs), J v), by the double backward trick: g(u) = uᵀJ is linear in u, so
    backward through it seeded with v gives (Jᵀ)ᵀ v = J v."""
    with enable_grad():
        is_inputs_tuple, inputs = c.as_tuple(inputs, "inputs", "jvp")
        inputs = c.grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = c.read_v(v, inputs, is_inputs_tuple, create_graph, "jvp", V_FOR_INPUT)
        is_outputs_tuple, outputs = c.outputs_of(func, inputs, "jvp")
        c.check_requires_grad(outputs, "outputs", strict=strict)
        grad_outputs, grad_inputs = _backward_at_zero(outputs, inputs, outputs)
        c.check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    result = _last_pass(grad_inputs, grad_outputs, v, outputs, strict, create_graph,
                        "back_trick")
    return _results(outputs, is_outputs_tuple, result, is_outputs_tuple, create_graph)


def _gradient_of_scalar(func: Callable, inputs: Any, v: Any, create_graph: bool, strict: bool,
                        fn_name: str) -> tuple:
    """The steps vhp and hvp share: fresh inputs, v checked, a one-element output, and its
    gradient with a graph (the first backward pass)."""
    is_inputs_tuple, inputs = c.as_tuple(inputs, "inputs", fn_name)
    inputs = c.grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    v = c.read_v(v, inputs, is_inputs_tuple, create_graph, fn_name, V_FOR_INPUT)
    is_outputs_tuple, outputs = c.outputs_of(func, inputs, fn_name)
    c.check_requires_grad(outputs, "outputs", strict=strict)
    if is_outputs_tuple or not c.is_tensor(outputs[0]):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")
    jac = c.autograd_grad(outputs, inputs, create_graph=True)
    c.check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


@transform("autograd.functional.vhp")
def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """(func(inputs), vᵀ H): backward through the gradient, seeded with v."""
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _gradient_of_scalar(
            func, inputs, v, create_graph, strict, "vhp")
    result = _last_pass(jac, inputs, v, inputs, strict, create_graph, "double_back")
    return _results(outputs, is_outputs_tuple, result, is_inputs_tuple, create_graph)


@transform("autograd.functional.hvp")
def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """(func(inputs), H v), by the double backward trick on vhp (H is symmetric, so this
    equals vhp for a twice-differentiable function; PyTorch computes it this way too)."""
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _gradient_of_scalar(
            func, inputs, v, create_graph, strict, "hvp")
        grad_jac, double_back = _backward_at_zero(jac, inputs, inputs)
        c.check_requires_grad(jac, "hessian", strict=strict)
    result = _last_pass(double_back, grad_jac, v, inputs, strict, create_graph,
                        "double_back_trick")
    return _results(outputs, is_outputs_tuple, result, is_inputs_tuple, create_graph)


def _backward_at_zero(outputs: tuple, inputs: tuple, like: tuple) -> tuple:
    """The double backward trick's first half: u ↦ uᵀJ recorded at u = 0 (zeros shaped like
    `like`, requiring grad). It is linear in u, so a backward pass through it seeded with v
    gives J v: forward mode's answer from two reverse passes."""
    u = tuple(c.zeros_like(x).requires_grad_() for x in like)
    return u, c.autograd_grad(outputs, inputs, u, create_graph=True)


def _last_pass(outputs: tuple, wrt: tuple, v: tuple, refs: tuple, strict: bool,
               create_graph: bool, stage: str) -> tuple:
    """The backward pass that gives the answer, seeded with v: recorded only when
    `create_graph` asks (or the caller records anyway); zeros where nothing depends."""
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = c.autograd_grad(outputs, wrt, v, create_graph=create_graph)
        return c.fill_in_zeros(grads, refs, strict, create_graph, stage)


def _results(outputs: tuple, is_outputs_tuple: bool, result: tuple, is_result_tuple: bool,
             create_graph: bool) -> tuple:
    """(the function's output, the product), cut from the graph unless `create_graph`."""
    return (c.unpack(c.grad_postprocess(outputs, create_graph), is_outputs_tuple),
            c.unpack(c.grad_postprocess(result, create_graph), is_result_tuple))
