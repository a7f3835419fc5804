"""`minigrad.utils.checkpoint`: trade compute for memory, as `torch.utils.checkpoint`.

`checkpoint(block, x, use_reentrant=...)` runs `block(x)` and gives its output; what differs
is what backward keeps and redoes. Both of PyTorch's variants are here:

- `use_reentrant=True` (PyTorch's default while it warns that you should choose): the block
  runs under no_grad, so none of its ops is recorded. One node, `CheckpointFunctionBackward`,
  stands for all of them and keeps only the block's inputs. Its backward runs the block
  again with grad on (the same random state, so dropout drops the same units), then a
  backward through that fresh graph: the inputs' gradients come out of it, and the block's
  parameters get theirs on the way.
- `use_reentrant=False` (PyTorch's advice): the block's ops are recorded as usual, but what
  they save for backward goes through saved-tensor hooks that keep a number instead of the
  tensor. The first time backward needs one, the block is run again (under those hooks) and
  every saved tensor comes back from that recomputation.

The block's forward runs twice: code in it with side effects (a print, a counter) shows it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from minigrad.autograd import backward as _backward
from minigrad.autograd import is_checkpoint_valid
from minigrad.autograd import tensor as _tensor
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import enable_grad, no_grad
from minigrad.autograd.graph import saved_tensors_hooks
from minigrad.ops.calls import calling
from minigrad.surface import random
from minigrad.utils.checkpoint_frame import CheckpointError, Frame, again, block_name

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "noop_context_fn"]

USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting "
    "in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")
SEQUENTIAL_WARNING = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
    "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")
GRAD_WITH_REENTRANT = (
    "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
    "`inputs` parameter to .backward(). To resolve this error, you can either set "
    "use_reentrant=False, or call .backward() without passing the `inputs` argument.")


def noop_context_fn() -> tuple:
    """The default `context_fn`: no context around the forward or the recomputation."""
    return _Nothing(), _Nothing()


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def _is_tensor(value: Any) -> bool:
    return isinstance(value, _tensor.Tensor)


class CheckpointFunction(Function):
    """the checkpointed block, run again in backward (use_reentrant=True)"""

    formula = r"recompute block(inputs) with grad on, then backward through it"
    source = staticmethod(lambda args, attrs, shape: f"checkpoint({attrs.get('block', 'block')}"
                          f", {', '.join(args)})")

    @staticmethod
    def forward(ctx, *tensors, run_function, preserve_rng_state, args, block):
        ctx.run_function, ctx.preserve_rng_state = run_function, preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = random.get_rng_state()
        ctx.inputs = args  # (the non-tensor arguments; the tensors are saved)
        ctx.save_for_backward(*tensors)
        with no_grad():
            return run_function(*_fill(args, tensors))

    @staticmethod
    def backward(ctx, *grads):
        if not is_checkpoint_valid():
            raise RuntimeError(GRAD_WITH_REENTRANT)
        with random.fork_rng(enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                random.set_rng_state(ctx.fwd_cpu_state)
            detached = tuple(again(t) for t in ctx.saved_tensors)
            with enable_grad(), calling("recompute", block_name(ctx.run_function), detached):
                outputs = ctx.run_function(*_fill(ctx.inputs, detached))
        outputs = (outputs,) if _is_tensor(outputs) else outputs
        pairs = [(o, g) for o, g in zip(outputs, grads) if _is_tensor(o) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        with calling("recompute", block_name(ctx.run_function), detached):
            _backward([o for o, _ in pairs], [g for _, g in pairs])
        return tuple(t.grad for t in detached)



def _fill(args: tuple, tensors: tuple) -> tuple:
    """The block's arguments: `args` with its tensor places (None) filled from `tensors`."""
    it = iter(tensors)
    return tuple(next(it) if a is _TENSOR else a for a in args)


_TENSOR = object()  # where a tensor argument goes in CheckpointFunction's `args`


def checkpoint(function: Callable, *args: Any, use_reentrant: bool | None = None,
               context_fn: Callable[[], tuple] = noop_context_fn,
               determinism_check: str = "default", debug: bool = False,
               early_stop: bool = True, **kwargs: Any) -> Any:
    """`function(*args, **kwargs)`, keeping less for backward and recomputing the rest
    (see the module's docstring for the two variants; `preserve_rng_state=True` by default)."""
    if use_reentrant is None:
        warnings.warn(USE_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        tensors = tuple(a for a in args if _is_tensor(a))
        if not any(t.requires_grad for t in tensors):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                          stacklevel=2)
        template = tuple(_TENSOR if _is_tensor(a) else a for a in args)
        with calling("checkpoint", block_name(function), tensors, reentrant=True):
            return CheckpointFunction.apply(*tensors, run_function=function,
                                            preserve_rng_state=preserve, args=template,
                                            block=block_name(function))
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    if debug and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    forward_ctx, recompute_ctx = context_fn()
    frame = Frame(function, args, kwargs, preserve, recompute_ctx, determinism_check)
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_ctx, calling(
            "checkpoint", block_name(function), [a for a in args if _is_tensor(a)]):
        return function(*args, **kwargs)


def checkpoint_sequential(functions: Any, segments: int, input: Any,
                          use_reentrant: bool | None = None, **kwargs: Any) -> Any:
    """Run `functions` (a list, or an nn.Sequential's children) one after the other, in
    `segments` chunks: every chunk but the last is checkpointed."""
    if use_reentrant is None:
        warnings.warn(SEQUENTIAL_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if hasattr(functions, "children"):  # an nn.Sequential: its layers
        functions = list(functions.children())

    def run(start: int, end: int) -> Callable:
        def forward(x: Any) -> Any:
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
