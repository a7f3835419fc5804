"""Nested containers of tensors ("pytrees"), flattened and rebuilt, as `torch.utils._pytree`
does for torch.func: tuples, lists, dicts and namedtuples are containers; anything else
(a tensor, a number, None) is a leaf.

`flatten(tree)` gives the leaves in order and a `TreeSpec`, the shape of the nesting;
`unflatten(leaves, spec)` puts new leaves back in the same nesting. The transforms use them
to accept `grad(f)(params_dict, x)`, `vmap(f, in_dims=(0, {"w": None}))` and friends, and
their error messages show a spec as PyTorch prints it.
"""

from __future__ import annotations

from typing import Any


class TreeSpec:
    """The nesting of a pytree: a container's type, its keys (dict) or class (namedtuple),
    and one spec per child; `LEAF` for a leaf."""

    def __init__(self, kind: type | None, context: Any = None, children: tuple = ()) -> None:
        self.type, self.context, self.children = kind, context, tuple(children)
        self.num_leaves = 1 if kind is None else sum(c.num_leaves for c in self.children)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TreeSpec) and self.type is other.type
                and self.context == other.context and self.children == other.children)

    def __hash__(self) -> int:
        return hash((self.type, len(self.children)))

    def __repr__(self, indent: int = 0) -> str:
        """PyTorch's form: `TreeSpec(tuple, None, [*,\\n  *])`, a leaf as `*`."""
        if self.type is None:
            return "*"
        name = "namedtuple" if _is_namedtuple(self.type) else self.type.__name__
        indent += 2
        inner = (",\n" + " " * indent).join(c.__repr__(indent) for c in self.children)
        return f"TreeSpec({name}, {self.context}, [{inner}])"


LEAF = TreeSpec(None)


def _is_namedtuple(kind: type) -> bool:
    return issubclass(kind, tuple) and hasattr(kind, "_fields")


def _children(tree: Any) -> tuple[type | None, Any, list]:
    """(container type or None for a leaf, context, children)."""
    kind = type(tree)
    if kind is tuple or kind is list:
        return kind, None, list(tree)
    if isinstance(tree, dict):
        return dict, list(tree.keys()), list(tree.values())
    if isinstance(tree, tuple) and _is_namedtuple(kind):
        return kind, kind, list(tree)
    return None, None, []


def flatten(tree: Any) -> tuple[list, TreeSpec]:
    """(the leaves in order, the spec to rebuild the tree from them)."""
    kind, context, children = _children(tree)
    if kind is None:
        return [tree], LEAF
    leaves: list = []
    specs = []
    for child in children:
        child_leaves, spec = flatten(child)
        leaves += child_leaves
        specs.append(spec)
    return leaves, TreeSpec(kind, context, tuple(specs))


def unflatten(leaves: list, spec: TreeSpec) -> Any:
    """The tree of `spec` with `leaves` put in, in order."""
    items = iter(leaves)
    tree = _build(items, spec)
    return tree


def _build(items: Any, spec: TreeSpec) -> Any:
    if spec.type is None:
        return next(items)
    children = [_build(items, c) for c in spec.children]
    if spec.type is dict:
        return dict(zip(spec.context, children))
    if _is_namedtuple(spec.type):
        return spec.type(*children)
    return spec.type(children)


def broadcast_prefix(prefix: Any, spec: TreeSpec) -> list | None:
    """One entry per leaf of `spec`, read from `prefix`, a tree whose leaves stand for whole
    subtrees (`in_dims=0` for every tensor, `(0, None)` for two arguments); None when the
    prefix does not fit the tree."""
    kind, context, children = _children(prefix)
    if kind is None:
        return [prefix] * spec.num_leaves
    if kind is not spec.type or context != spec.context or len(children) != len(
            spec.children):
        return None
    found: list = []
    for child, child_spec in zip(children, spec.children):
        part = broadcast_prefix(child, child_spec)
        if part is None:
            return None
        found += part
    return found


class _Star:
    def __repr__(self) -> str:
        return "*"


def pprint(spec: TreeSpec) -> str:
    """The nesting with a `*` per leaf: `(*, [*, *])` (PyTorch's treespec_pprint)."""
    return repr(unflatten([_Star()] * spec.num_leaves, spec))
