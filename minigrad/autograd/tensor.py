"""Tensor: a numpy array plus what autograd needs to know about it.

`array` is the numpy array (minigrad's own name: PyTorch has none, its storage is C++); `data`
is, as in PyTorch, another Tensor on the same memory, outside the graph. `grad_fn` is the Node
that made this tensor (None for a leaf), `grad` is where backward leaves the gradient of a
leaf. Every operator and op method (tensor_methods.py) delegates to an op in `minigrad.ops`;
the tensor itself never computes a derivative.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad import autograd
from minigrad.autograd import hooks, node
from minigrad.autograd.grad_mode import INFERENCE
from minigrad.surface import devices, dtypes
from minigrad.surface.tensor_info import TensorInfo
from minigrad.surface.tensor_methods import TensorMethods

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead."
)

NON_LEAF_REQUIRES_GRAD = "you can only change requires_grad flags of leaf variables."
NON_LEAF_NO_GRAD = (NON_LEAF_REQUIRES_GRAD + " If you want to use a computed variable in a "
                    "subgraph that doesn't require differentiation use var_no_grad = "
                    "var.detach().")


DETACH_VIEW = (
    "Can't detach views in-place. Use detach() instead. If you are using "
    "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, "
    "gradients are views of DDP buckets, and hence detach_() cannot be called on these "
    "gradients. To fix this error, please refer to the Optimizer.zero_grad() function in "
    "torch/optim/optimizer.py as the solution.")

# the C names PyTorch gives dtypes in the .grad dtype message
_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}


class Tensor(TensorInfo, TensorMethods):
    """An n-dimensional array that can record the operations applied to it."""

    # What most tensors never change lives on the class: a new tensor sets only its data, its
    # grad_fn and where it came from, which makes making one (what every op does) cheap.
    _grad: Tensor | None = None
    _version_counter: list | None = None  # [version], made on first need (`_shared_version`)
    _retains_grad = False
    _grad_acc: Any = None  # a leaf's AccumulateGrad node, made on first use
    _base: Tensor | None = None  # the tensor a view shares memory with
    _tangents: dict | None = None  # forward mode: {level: tangent} (autograd/forward_ad.py)
    _inference = False  # made inside inference_mode (grad_mode.py)
    name: str | None = None
    __array_priority__ = 1000  # numpy defers `ndarray * Tensor` to Tensor.__rmul__

    def __init__(self, *data: Any, requires_grad: bool = False, dtype: Any = None,
                 name: str | None = None, device: Any = None) -> None:
        """PyTorch's legacy constructor: `Tensor(2, 3)` (a shape; PyTorch leaves the memory
        uninitialised, minigrad fills it with zeros), `Tensor([1, 2])` (Python data, in the
        default float dtype even for ints), `Tensor()` (empty). Where minigrad differs on
        purpose (its own code relies on it): a numpy array keeps its dtype (PyTorch makes it
        float32), one number makes a 0-d tensor (PyTorch reads `Tensor(3)` as the shape (3,)
        and refuses a float), and `requires_grad=`, `dtype=`, `name=` are taken. Prefer
        `minigrad.tensor(data)` or `minigrad.zeros(n)`."""
        if device is not None and devices.device(device).type != "cpu":
            raise RuntimeError("legacy constructor expects device type: cpu but device type: "
                               f"{devices.device(device).type} was passed\n"
                               + devices.CPU_ONLY_HINT)
        self.array = dtypes.legacy_array(data, dtype)
        self.grad_fn, self._requires_grad, self._output_nr = None, False, 0
        self.name = name
        if INFERENCE.get():
            self._inference = True
        if requires_grad:
            self._leaf_requires_grad()

    @staticmethod
    def _make(data: np.ndarray, grad_fn: Any, output_nr: int,
              version_counter: list | None = None) -> Tensor:
        """Fast constructor used by ops: no conversion, no checks. (A staticmethod: calling it
        binds nothing, which a classmethod would do on every call.)"""
        t = _new(Tensor)
        t.array = data
        t.grad_fn = grad_fn
        t._requires_grad = grad_fn is not None
        t._output_nr = output_nr
        if version_counter is not None:
            t._version_counter = version_counter
        if INFERENCE.get():
            t._inference = True
        return t

    # -- autograd attributes -------------------------------------------------------------
    def is_inference(self) -> bool:
        """Made inside `inference_mode`, or a view of a tensor that was (as PyTorch's, except
        that a view made there of a tensor made outside is one too: minigrad does not tell
        views from new tensors)."""
        return self._inference

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise RuntimeError("requires_grad must be a bool")
        if self.grad_fn is not None:
            # (PyTorch's words differ: `y.requires_grad = True` gets the short one)
            raise RuntimeError(NON_LEAF_REQUIRES_GRAD if value else NON_LEAF_NO_GRAD)
        if value and self.array.dtype.kind not in "fc":
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients")
        if value and self._inference and not INFERENCE.get():
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if not isinstance(requires_grad, (bool, np.bool_)):
            raise TypeError("requires_grad_(): argument 'requires_grad' (position 1) must be "
                            f"bool, not {type(requires_grad).__name__}")
        if requires_grad and self.array.dtype.kind not in "fc":  # (PyTorch's words, here)
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if not (requires_grad and self.grad_fn is not None):  # (a non-leaf already requires it)
            self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def grad(self) -> Tensor | None:
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad "
                                f"of type {type(value).__name__}")
            if value.array.shape != self.array.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.array.shape)}' to a "
                    f"tensor of size '{list(self.array.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size")
            if value.array.dtype != self.array.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype "
                    f"'{_C_NAMES.get(value.array.dtype.name, value.array.dtype.name)}' to a "
                    f"tensor with grad_dtype '{dtypes.TORCH_NAMES[self.array.dtype]}'. The "
                    "gradient must match the tensor's grad_dtype (defaults to the tensor's "
                    "dtype). You can set the tensor's grad_dtype attribute with a specific "
                    "dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging "
                    "the dtypes of a tensor and its gradient may break downstream systems that "
                    "assume they match.")
        self._grad = value

    retains_grad = property(lambda self: self._retains_grad)
    output_nr = property(lambda self: self._output_nr)

    @property
    def _version(self) -> int:
        """How many in-place changes this tensor's memory has seen (shared with its views)."""
        return 0 if self._version_counter is None else self._version_counter[0]

    def _shared_version(self) -> list:
        """The version counter, made on first need (most tensors are never changed in place or
        viewed). A tensor its grad_fn saved as its output (tanh, exp, ...) hands the counter to
        that node too, so that backward can tell the output was changed after it was saved."""
        if self._version_counter is None:
            self._version_counter = [0]
            fn = self.grad_fn
            if fn is not None and fn._output_array is self.array:
                fn._output_version_counter = self._version_counter
        return self._version_counter

    def _bump_version(self) -> None:
        (self._version_counter or self._shared_version())[0] += 1

    def _accumulator(self) -> Any:
        """The one AccumulateGrad node of this leaf (made on first use)."""
        if self._grad_acc is None:
            self._grad_acc = node.AccumulateGrad(self)
        return self._grad_acc

    def retain_grad(self) -> None:
        """Keep `.grad` for this non-leaf tensor after backward (a no-op on leaves)."""
        hooks.retain_grad(self)

    def register_hook(self, hook: Callable) -> hooks.RemovableHandle:
        """`hook(grad) -> None | new grad`, called when this tensor's gradient is computed."""
        return hooks.add_tensor_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable) -> hooks.RemovableHandle:
        """`hook(self)`, called after each backward has added into this leaf's `.grad`."""
        return hooks.add_post_accumulate_hook(self, hook)

    def backward(self, gradient: Tensor | None = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Any = None) -> None:
        """Compute the gradient of this tensor w.r.t. the graph leaves (autograd.backward)."""
        autograd.backward([self], gradient,
                          retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)

    @property
    def data(self) -> Tensor:
        """As in PyTorch: a tensor on the same memory, cut from the graph, whose in-place
        changes autograd does not see (it has a version counter of its own, unlike detach())."""
        return Tensor._make(self.array, None, 0)

    @data.setter
    def data(self, value: Tensor) -> None:
        """`x.data = t`: x takes t's memory (any shape), keeping its grad_fn and .grad."""
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got "
                            f"{type(value).__module__}.{type(value).__name__}")
        if self._requires_grad and value.array.dtype.kind not in "fc":
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
        self.array = value.array

    def detach(self) -> Tensor:
        """The same data, cut from the graph (shares memory and version counter)."""
        out = Tensor._make(self.array, None, 0, self._shared_version())
        out._inference = self._inference
        return out

    def _leaf_requires_grad(self) -> None:
        """`requires_grad=True` given to a factory: PyTorch's third wording for an integer."""
        if self.array.dtype.kind not in "fc":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients")
        self.requires_grad = True

    def detach_(self) -> Tensor:
        if self._base is not None:
            raise RuntimeError(DETACH_VIEW)
        self._shared_version()  # (before leaving its node, which may have saved it)
        self.grad_fn, self._output_nr, self._requires_grad = None, 0, False
        return self


make = Tensor._make  # the same, as a plain function: ops call it on every result
_new = object.__new__  # (a global: `object.__new__` is an attribute load on every call)
