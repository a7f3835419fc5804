"""The layer nodes of a PyTorch graph read as the calls that made them, with their settings:
`conv2d(x, conv1.weight, stride=2, padding=3)`, `max_pool2d(t3, kernel_size=3, stride=2,
padding=1)`, `batch_norm(t1, bn1.running_mean, bn1.running_var, bn1.weight, bn1.bias,
training=True)`.

The settings are what torch keeps on the node (`_saved_stride`, `_saved_padding`,
`_saved_kernel_size`, `_saved_training`, `_saved_eps`, ...) and, for the two it does not keep
(batch_norm's momentum, layer_norm's eps), the recorded call, when there is one. A setting is
written only when it is not the function's default, a symmetric one as one number, as one
writes it in PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["LAYER_SETTINGS", "layer_source"]

_CONV = {"stride": 1, "padding": 0, "dilation": 1, "output_padding": 0}
_POOL = ("kernel_size", "stride", "padding", "dilation", "ceil_mode", "count_include_pad",
         "divisor_override")


def _from_call(facts: Any, function: str, position: int, key: str) -> Any:
    """Argument `key` (at `position`) of the recorded call, if the node came from `function`."""
    call = facts.call
    if call is None or len(call) < 3 or getattr(call[2], "__name__", "") != function:
        return None
    args, kwargs = call[0], call[1]
    if key in kwargs:
        return kwargs[key]
    return args[position] if position < len(args) else None


def _settings(facts: Any) -> dict[str, Any]:
    keep = {k: v for k, v in facts.saved.items() if isinstance(v, bool | int | float | tuple)
            and not k.endswith(("_sym_sizes", "_sym_sizes_opt"))}
    if facts.name == "NativeBatchNormBackward0":
        momentum = _from_call(facts, "batch_norm", 6, "momentum")
        if momentum is not None:
            keep["momentum"] = momentum
    elif facts.name == "NativeLayerNormBackward0":
        eps = _from_call(facts, "layer_norm", 4, "eps")
        if eps is not None:
            keep["eps"] = eps
        keep["normalized_shape"] = tuple(facts.saved["normalized_shape"])
    elif facts.name.startswith("Adaptive") and facts.out_shape is not None:
        nd = int(facts.name.split("Pool")[1][0])  # AdaptiveAvgPool2DBackward0: 2
        keep["output_size"] = tuple(facts.out_shape[-nd:])
    if facts.name == "ConvolutionBackward0":
        keep["bias"] = facts.saved.get("bias_sym_sizes_opt") not in (None, (0,))
    return keep


def _one(value: Any) -> Any:
    """(2, 2) as 2, as PyTorch's calls are usually written; (3, 2) as it is."""
    if isinstance(value, tuple) and value and all(v == value[0] for v in value):
        return value[0]
    return value


def _shown(attrs: dict, defaults: dict) -> list[str]:
    out = []
    for key, default in defaults.items():
        if key in attrs and _one(attrs[key]) != default:
            out.append(f"{key}={_one(attrs[key])}")
    return out


def _conv(args: list[str], attrs: dict) -> str:
    nd = len(attrs["stride"])
    transposed = attrs.get("transposed", False)
    name = f"conv_transpose{nd}d" if transposed else f"conv{nd}d"
    inputs = args[:3] if attrs.get("bias") else args[:2]
    defaults = dict(_CONV, groups=1)
    if not transposed:
        del defaults["output_padding"]
    return f"{name}({', '.join([*inputs, *_shown(attrs, defaults)])})"


def _pool(kind: str) -> Callable[[list[str], dict], str]:
    def source(args: list[str], attrs: dict) -> str:
        kernel = attrs["kernel_size"]
        defaults: dict[str, Any] = {"stride": _one(kernel), "padding": 0, "dilation": 1,
                                    "ceil_mode": False}
        if kind == "avg":
            defaults.update(count_include_pad=True, divisor_override=None)
            del defaults["dilation"]
        attrs = {k: v for k, v in attrs.items() if k in _POOL}
        if "stride" in attrs and not attrs["stride"]:  # stride=None: the kernel size
            attrs["stride"] = kernel
        shown = [f"kernel_size={_one(kernel)}", *_shown(attrs, defaults)]
        return f"{kind}_pool{len(kernel)}d({', '.join([args[0], *shown])})"

    return source


def _adaptive(kind: str) -> Callable[[list[str], dict], str]:
    def source(args: list[str], attrs: dict) -> str:
        size = attrs["output_size"]
        return f"adaptive_{kind}_pool{len(size)}d({args[0]}, {size})"

    return source


def _affine(args: list[str], attrs: dict) -> list[str]:
    """weight, bias: "None" where torch was given none (trailing ones left out)."""
    out = [a if attrs.get(f"has_{k}", True) else "None"
           for k, a in zip(("weight", "bias"), args[1:3])]
    while out and out[-1] == "None":
        out.pop()
    return out


def _batch_norm(args: list[str], attrs: dict) -> str:
    stats = [attrs.get("running_mean", "None"), attrs.get("running_var", "None")]
    shown = [args[0], *stats, *_affine(args, attrs)]
    settings = [f"training={attrs['training']}"] if attrs.get("training") else []
    settings += _shown(attrs, {"momentum": 0.1, "eps": 1e-05})
    return f"batch_norm({', '.join(shown + settings)})"


def _layer_norm(args: list[str], attrs: dict) -> str:
    shown = [args[0], str(attrs["normalized_shape"]), *_affine(args, attrs)]
    return f"layer_norm({', '.join(shown + _shown(attrs, {'eps': 1e-05}))})"


def _group_norm(args: list[str], attrs: dict) -> str:
    shown = [args[0], str(attrs["group"]), *_affine(args, attrs)]
    return f"group_norm({', '.join(shown + _shown(attrs, {'eps': 1e-05}))})"


_SOURCES: dict[str, Callable[[list[str], dict], str]] = {
    "ConvolutionBackward0": _conv,
    "MaxPool2DWithIndicesBackward0": _pool("max"),
    "MaxPool3DWithIndicesBackward0": _pool("max"),
    "AvgPool2DBackward0": _pool("avg"),
    "AvgPool3DBackward0": _pool("avg"),
    "AdaptiveAvgPool2DBackward0": _adaptive("avg"),
    "AdaptiveAvgPool3DBackward0": _adaptive("avg"),
    "AdaptiveMaxPool2DBackward0": _adaptive("max"),
    "AdaptiveMaxPool3DBackward0": _adaptive("max"),
    "NativeBatchNormBackward0": _batch_norm,
    "NativeLayerNormBackward0": _layer_norm,
    "NativeGroupNormBackward0": _group_norm,
}

LAYER_SETTINGS: dict[str, Callable[[Any], dict[str, Any]]] = {
    name: _settings for name in _SOURCES}


def layer_source(name: str, args: list[str], attrs: dict, tensors: dict[str, str]
                 ) -> str | None:
    """The call that made layer node `name` (None for any other node). `args` are its
    inputs' labels (PyTorch's `next_functions` order), `attrs` its settings, `tensors` the
    labels of the tensors it saved that are not inputs (`running_mean`: `bn1.running_mean`)
    and, as `has_weight` / `has_bias`, whether those inputs were given."""
    source = _SOURCES.get(name)
    if source is None:
        return None
    try:
        return source(args, {**attrs, **tensors})
    except (KeyError, IndexError, TypeError):
        return None
