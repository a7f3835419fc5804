"""`make_dot`: torchviz's drawing of a backward graph, on minigrad, without torchviz.

The first answer a learner finds to "how do I see what `loss.backward()` does" is torchviz's
`make_dot(y.mean(), params=dict(model.named_parameters()))`. This draws the same picture with
the same conventions, so the same code works on `minigrad` as on `torch` (and torchviz itself
draws minigrad's graphs too):
- a grey box per backward node, labelled with its class name (`MulBackward0`); with
  `show_attrs=True`, the node's `_saved_*` values underneath (`[saved tensor]` for tensors);
- a light blue box per leaf that gets a `.grad` (named from `params`), above its
  AccumulateGrad;
- an orange box per saved tensor: a custom Function's `saved_tensors` always, every node's
  `_saved_*` tensors with `show_saved=True`;
- a green box per output, and a darker green one for the base of an output that is a view.
Box labels are the name and the shape, `"weight\\n (3, 4)"`; edges run from inputs to the
node that uses them. minigrad's own drawing, with gradients and step numbers, is `viz.draw`.
"""

from __future__ import annotations

from typing import Any

from minigrad.autograd.tensor import Tensor
from minigrad.autograd.variable import Variable

SAVED_PREFIX = "_saved_"
NODE_STYLE = dict(style="filled", shape="box", align="left", fontsize="10", ranksep="0.1",
                  height="0.2", fontname="monospace")


def make_dot(var: Any, params: dict | None = None, show_attrs: bool = False,
             show_saved: bool = False, max_attr_chars: int = 50) -> Any:
    """torchviz's `make_dot` (same arguments): a `graphviz.Digraph` of the graph behind
    `var` (a tensor or a tuple of tensors)."""
    from graphviz import Digraph

    if params is not None:
        if not all(isinstance(p, Variable) for p in params.values()):
            raise TypeError("make_dot: every value of `params` must be a tensor")
        names = {id(v): k for k, v in params.items()}
    else:
        names = {}
    dot = Digraph(node_attr=NODE_STYLE, graph_attr=dict(size="12,12"))
    seen: set = set()

    def tensor_box(t: Tensor, color: str, name: str | None = None) -> None:
        label = name or names.get(id(t), "")
        dot.node(str(id(t)), f"{label}\n {shape_text(t.shape)}", fillcolor=color)

    def begin(fn: Any) -> None:
        """What torchviz draws for a node before its inputs: saved tensors, its leaf, itself."""
        seen.add(fn)
        if show_saved:
            for attr, value in saved_values(fn):
                seen.add(value)
                for label, t in saved_tensors_of(attr, value):
                    dot.edge(str(id(fn)), str(id(t)), dir="none")
                    tensor_box(t, "orange", label)
        leaf = getattr(fn, "variable", None)
        if leaf is not None:
            seen.add(leaf)
            tensor_box(leaf, "lightblue")
            dot.edge(str(id(leaf)), str(id(fn)))
        dot.node(str(id(fn)), node_label(fn, show_attrs, max_attr_chars))

    def end(fn: Any) -> None:
        """... and after them: a custom Function's saved tensors."""
        for t in custom_saved(fn):
            seen.add(t)
            dot.edge(str(id(t)), str(id(fn)), dir="none")
            tensor_box(t, "orange")

    def add_node(root: Any) -> None:
        """Depth first, in torchviz's order (so the DOT text is the same), but with a stack
        instead of recursion: a graph a million nodes deep draws too."""
        if root in seen:
            return
        begin(root)
        stack = [(root, iter(root.next_functions))]
        while stack:
            fn, inputs = stack[-1]
            nxt = next(inputs, None)
            if nxt is None:
                end(fn)
                stack.pop()
            elif nxt[0] is not None:
                dot.edge(str(id(nxt[0])), str(id(fn)))
                if nxt[0] not in seen:
                    begin(nxt[0])
                    stack.append((nxt[0], iter(nxt[0].next_functions)))

    def add_output(t: Tensor, color: str = "darkolivegreen1") -> None:
        if t in seen:
            return
        seen.add(t)
        tensor_box(t, color)
        if t.grad_fn is not None:
            add_node(t.grad_fn)
            dot.edge(str(id(t.grad_fn)), str(id(t)))
        if t._is_view():
            add_output(t._base, "darkolivegreen3")
            dot.edge(str(id(t._base)), str(id(t)), style="dotted")

    for t in var if isinstance(var, tuple) else (var,):
        add_output(t)
    size = max(12, len(dot.body) * 0.15)  # torchviz's resize_graph
    dot.graph_attr.update(size=f"{size},{size}")
    return dot


def shape_text(shape: tuple) -> str:
    return "(" + ", ".join(f"{n:d}" for n in shape) + ")"


def saved_values(fn: Any) -> list[tuple[str, Any]]:
    """The node's `_saved_*` attributes (as `dir()` lists them), without the prefix."""
    return [(attr[len(SAVED_PREFIX):], getattr(fn, attr))
            for attr in dir(fn) if attr.startswith(SAVED_PREFIX)]


def saved_tensors_of(attr: str, value: Any) -> list[tuple[str, Tensor]]:
    """The tensors of one saved attribute, with their box labels (`mat1`, `tensors[0]`)."""
    if isinstance(value, Tensor):
        return [(attr, value)]
    if isinstance(value, tuple):
        return [(f"{attr}[{i}]", t) for i, t in enumerate(value) if isinstance(t, Tensor)]
    return []


def custom_saved(fn: Any) -> tuple:
    """A custom Function's `saved_tensors` (built-in nodes have none, as in PyTorch)."""
    try:
        return tuple(t for t in fn.saved_tensors if isinstance(t, Tensor))
    except AttributeError:
        return ()


def node_label(fn: Any, show_attrs: bool, max_attr_chars: int) -> str:
    """The class name; with `show_attrs`, a table of the saved attributes under it."""
    name = type(fn).__name__
    if not show_attrs:
        return name
    attrs = {}
    for attr, value in saved_values(fn):
        if isinstance(value, Tensor):
            attrs[attr] = "[saved tensor]"
        elif isinstance(value, tuple) and any(isinstance(t, Tensor) for t in value):
            attrs[attr] = "[saved tensors]"
        else:
            attrs[attr] = str(value)
    if not attrs:
        return name
    width_value = min(max(len(v) for v in attrs.values()), max(max_attr_chars, 3))
    width_key = max(len(k) for k in attrs)
    rule = "-" * max(width_key + width_value + 2, len(name))
    rows = [f"{k:<{width_key}}: {cut(v, width_value):>{width_value}}" for k, v in attrs.items()]
    return "\n".join([name, rule, *rows])


def cut(text: str, width: int) -> str:
    return text[:width - 3] + "..." if len(text) > width else text
