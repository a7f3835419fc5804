"""torchviz's `make_dot` on minigrad: the same picture as on PyTorch.

Three drawings of the same model are compared, with graphviz's node ids masked (each id is
replaced by its node's label): torchviz (the installed package) on PyTorch, torchviz on
minigrad (its module run with `torch` standing for minigrad, as a learner's `import minigrad
as torch` does), and `minigrad.viz.make_dot`, which needs no torchviz. The models: the corpus
expressions, an MLP, a small CNN and an LSTM, with `show_attrs` and `show_saved` on and off.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import warnings
from collections import Counter
from typing import Any

import numpy as np
import pytest

import minigrad
from minigrad.autograd import Variable
from minigrad.teach.make_dot import make_dot

LINE = re.compile(r'^\t(?P<a>\d+)(?: -> (?P<b>\d+))?(?: \[(?P<attrs>.*)\])?$', re.S)
FLAGS = [dict(), dict(show_attrs=True), dict(show_saved=True),
         dict(show_attrs=True, show_saved=True, max_attr_chars=12)]


def canonical(dot: Any) -> tuple[Counter, Counter]:
    """The drawing without ids: its nodes (label and colour) and edges (between labels)."""
    labels, attrs_of, edges = {}, {}, []
    for line in dot.body:
        m = LINE.match(line.rstrip("\n"))
        assert m, line
        attrs = m["attrs"] or ""
        if m["b"] is None:
            label = re.search(r'label="((?:[^"\\]|\\.)*)"|label=(\S+)', attrs)
            labels[m["a"]] = label.group(1) if label.group(1) is not None else label.group(2)
            attrs_of[m["a"]] = re.sub(r'label=("(?:[^"\\]|\\.)*"|\S+)', "", attrs).strip()
        else:
            edges.append((m["a"], m["b"], attrs))
    nodes = Counter((labels[k], attrs_of[k]) for k in labels)
    return nodes, Counter((labels[a], labels[b], attrs) for a, b, attrs in edges)


def torchviz_module(torch_like: Any) -> Any:
    """torchviz's `dot` module, loaded afresh with `torch` meaning `torch_like`."""
    torchviz = pytest.importorskip("torchviz") if not _ci() else _import_torchviz()
    path = torchviz.dot.__file__
    spec = importlib.util.spec_from_file_location(f"torchviz_on_{torch_like.__name__}", path)
    module = importlib.util.module_from_spec(spec)
    saved = {name: sys.modules.get(name) for name in ("torch", "torch.autograd")}
    sys.modules["torch"], sys.modules["torch.autograd"] = torch_like, torch_like.autograd
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # (its distutils import)
            spec.loader.exec_module(module)
    finally:
        for name, value in saved.items():
            sys.modules[name] = value
    return module


_LOADED: dict = {}


def TORCHVIZ_ON_TORCH(torch: Any) -> Any:  # noqa: N802 (one module, loaded once)
    if "torch" not in _LOADED:
        _LOADED["torch"] = torchviz_module(torch)
    return _LOADED["torch"]


def _ci() -> bool:
    import os
    return os.environ.get("CI") == "true"


def _import_torchviz() -> Any:
    import torchviz  # (CI installs it: a missing torchviz fails there)
    return torchviz


def drawn_by_torchviz(module: Any, out: Any, params: dict, **flags: Any) -> tuple:
    return canonical(torchviz_dot(module, out, params, **flags))


def torchviz_dot(module: Any, out: Any, params: dict, **flags: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # ("requires PyTorch version >= 1.9")
        return module.make_dot(out, params=params, **flags)


def numbered(source: str) -> str:
    """DOT text with each id replaced by its order of first appearance (n0, n1, ...)."""
    order: dict = {}
    return re.sub(r"\b\d{6,}\b", lambda m: f"n{order.setdefault(m[0], len(order))}", source)


# -- the models, built the same on both sides ---------------------------------------------------
def mlp(T: Any) -> Any:
    return T.nn.Sequential(T.nn.Linear(4, 5), T.nn.ReLU(), T.nn.Linear(5, 3))


def cnn(T: Any) -> Any:
    return T.nn.Sequential(T.nn.Conv2d(1, 2, 3), T.nn.ReLU(), T.nn.MaxPool2d(2),
                           T.nn.Flatten(), T.nn.Linear(2 * 3 * 3, 4))


class LSTMHead:
    """An LSTM over a short sequence and a linear layer on its last output."""

    def __init__(self, T: Any) -> None:
        self.lstm, self.fc = T.nn.LSTM(3, 4, batch_first=True), T.nn.Linear(4, 2)

    def named_parameters(self):
        yield from (("lstm." + k, v) for k, v in self.lstm.named_parameters())
        yield from (("fc." + k, v) for k, v in self.fc.named_parameters())

    def __call__(self, x):
        out, _ = self.lstm(x)
        return self.fc(out[:, -1])


MODELS = {"mlp": (mlp, (2, 4)), "cnn": (cnn, (2, 1, 8, 8)), "lstm": (LSTMHead, (2, 5, 3))}


def twin_outputs(name: str, torch: Any) -> tuple:
    """The model's loss on minigrad and on PyTorch, with the same weights and input."""
    build, shape = MODELS[name]
    ours, theirs = build(minigrad), build(torch)
    rng = np.random.default_rng(0)
    with torch.no_grad():
        for (_, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            q.copy_(torch.tensor(p.detach().numpy()))
    x = rng.standard_normal(shape).astype(np.float32)
    out_ours = ours(minigrad.tensor(x)).mean()
    # PyTorch's oneDNN kernel records a whole LSTM layer as one node (MkldnnRnnLayerBackward0);
    # its own step-by-step path, which minigrad follows, is the one it takes without oneDNN
    with torch.backends.mkldnn.flags(enabled=False):
        out_theirs = theirs(torch.tensor(x)).mean()
    return ((out_ours, dict(ours.named_parameters())),
            (out_theirs, dict(theirs.named_parameters())))


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: ",".join(f) or "plain")
@pytest.mark.parametrize("name", sorted(MODELS))
def test_torchviz_draws_minigrads_models_as_pytorchs(name, flags, torch_mod):
    (ours, our_params), (theirs, their_params) = twin_outputs(name, torch_mod)
    on_torch = torchviz_dot(torchviz_module(torch_mod), theirs, their_params, **flags)
    on_minigrad = torchviz_dot(torchviz_module(minigrad), ours, our_params, **flags)
    assert canonical(on_minigrad) == canonical(on_torch)
    # minigrad's own make_dot writes the very text torchviz writes (ids aside)
    assert numbered(make_dot(ours, params=our_params, **flags).source) == numbered(
        on_torch.source)


def corpus_outputs(case: Any, torch: Any) -> tuple:
    """A corpus case's output on minigrad and on PyTorch (no backward: the graph is whole)."""
    from compare.source import from_source
    from compare.torch_bridge import MINIGRAD, TORCH, as_array, call

    arrays = {k: as_array(v) for k, v in case.arrays().items()}
    fn, torch_fn = case.fn, case.torch_fn
    if isinstance(fn, str) or isinstance(torch_fn, str):
        fn, torch_fn = from_source(fn, torch_fn, list(arrays))
    outs = []
    for engine, f in ((MINIGRAD, fn), (TORCH, torch_fn or fn)):
        leaves = {k: engine.tensor(a, g) for k, (a, g) in arrays.items()}
        outs.append((call(f, leaves, engine), {k: t for k, t in leaves.items()
                                               if t.requires_grad}))
    return tuple(outs)


DIM_FIELDS = {"dim", "dims", "dim0", "dim1", "dim2"}


def without_dims_written_negative(drawing: tuple, torch_drawing: tuple) -> tuple:
    """`drawing` with the dims that PyTorch shows as written negative (dim=-1 is
    18446744073709551615 in its node) left out of every label, in both drawings: minigrad keeps
    a dim counted from the front (1), a documented difference (tutorials/differences.md)."""
    negative = {(label.split("\n")[0], key) for (label, _), _ in torch_drawing[0].items()
                for key, value in rows(label).items()
                if key in DIM_FIELDS
                and any(written_negative(n) for n in re.findall(r"\d+", value))}

    def strip(label: str) -> str:
        name = label.split("\n")[0]
        kept = {k: v for k, v in rows(label).items() if (name, k) not in negative}
        return name + "|" + ";".join(f"{k}={v}" for k, v in sorted(kept.items()))

    nodes, edges = Counter(), Counter()
    for (label, attrs), n in drawing[0].items():
        nodes[strip(label), attrs] += n
    for (a, b, attrs), n in drawing[1].items():
        edges[strip(a), strip(b), attrs] += n
    return nodes, edges


def written_negative(digits: str) -> bool:
    """A number shown for a negative int (2**64 - k), or its start where the label cut it."""
    return int(digits) >= 2**63 or (len(digits) >= 4 and str(2**64 - 1).startswith(digits))


def rows(label: str) -> dict:
    """A node label's table of saved attributes (`name: value` rows under the rule)."""
    lines = label.split("\n")
    return {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in lines[2:]
                                              if ":" in line)} if len(lines) > 2 else {}


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: ",".join(f) or "plain")
def test_corpus_expressions_draw_as_on_pytorch(flags, torch_mod):
    from compare.corpus import CORPUS, by_name

    differ = {}
    for case in CORPUS:
        (ours, our_leaves), (theirs, their_leaves) = corpus_outputs(case, torch_mod)
        if not getattr(theirs, "requires_grad", False):
            continue
        on_torch = drawn_by_torchviz(TORCHVIZ_ON_TORCH(torch_mod), theirs, their_leaves,
                                     **flags)
        mine = canonical(make_dot(ours, params=our_leaves, **flags))
        if without_dims_written_negative(mine, on_torch) != without_dims_written_negative(
                on_torch, on_torch):
            differ[case.name] = on_torch
    # only where the graphs differ by design (compare/graph_compare.py says why)
    assert [name for name in differ if by_name(name).run().graph.by_design is None] == []
    assert len(differ) <= 3


def test_make_dot_has_torchvizs_signature():
    import inspect

    params = inspect.signature(make_dot).parameters
    assert list(params) == ["var", "params", "show_attrs", "show_saved", "max_attr_chars"]
    assert [p.default for p in list(params.values())[1:]] == [None, False, False, 50]
    assert minigrad.viz.make_dot is make_dot


def test_a_leaf_with_its_name_and_shape_and_the_output_in_green():
    w = minigrad.ones(2, 3, requires_grad=True)
    y = (w * 2).sum()
    nodes, edges = canonical(make_dot(y, params={"w": w}))
    assert nodes == Counter({("w\n (2, 3)", "fillcolor=lightblue"): 1,
                             ("AccumulateGrad", ""): 1, ("MulBackward0", ""): 1,
                             ("SumBackward0", ""): 1, ("\n ()", "fillcolor=darkolivegreen1"): 1})
    assert ("w\n (2, 3)", "AccumulateGrad", "") in edges


def test_params_must_be_tensors():
    with pytest.raises(TypeError, match="must be a tensor"):
        make_dot(minigrad.ones(1, requires_grad=True).sum(), params={"w": np.ones(1)})


# -- autograd.Variable, as PyTorch has it -------------------------------------------------------
def test_variable_is_a_class_true_for_every_tensor(torch_mod):
    from torch.autograd import Variable as TorchVariable

    for V, T in ((Variable, minigrad), (TorchVariable, torch_mod)):
        assert isinstance(V, type)
        assert isinstance(T.ones(1), V) and isinstance(T.nn.Parameter(T.ones(1)), V)
        assert not isinstance(3, V) and not isinstance(np.ones(1), V)


def test_variable_gives_a_new_leaf_on_the_same_memory(torch_mod):
    for T in (minigrad, torch_mod):
        x = T.ones(2, requires_grad=True)
        y = x * 2
        v = T.autograd.Variable(y)
        assert v is not y and v.grad_fn is None and not v.requires_grad
        w = T.autograd.Variable(y.detach(), requires_grad=True)
        assert w.is_leaf and w.requires_grad
        plain = T.ones(2)
        alias = T.autograd.Variable(plain)
        plain.add_(1)
        assert alias.tolist() == [2.0, 2.0] and alias._version == plain._version == 1
        assert type(T.autograd.Variable(T.nn.Parameter(T.ones(1)))).__name__ == "Tensor"
        assert T.autograd.Variable().tolist() == []


def test_variable_refuses_what_pytorch_refuses(torch_mod):
    for T in (minigrad, torch_mod):
        with pytest.raises(TypeError, match="^Variable data has to be a tensor, but got list$"):
            T.autograd.Variable([1.0])
        with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
            T.autograd.Variable(T.ones(1), volatile=True)
        with pytest.raises(ValueError, match="can't be volatile and require_grad"), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            T.autograd.Variable(T.ones(1), requires_grad=True, volatile=True)


# -- what a node shows, as PyTorch's -----------------------------------------------------------
def test_built_in_nodes_have_no_saved_tensors_and_a_users_function_has(torch_mod):
    for T in (minigrad, torch_mod):
        class Double(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return g * 2

        x = T.ones(2, requires_grad=True)
        y = (x * x).sum()
        assert not hasattr(y.grad_fn, "saved_tensors")
        assert not hasattr(y.grad_fn.next_functions[0][0], "saved_tensors")
        z = Double.apply(x)
        assert type(z.grad_fn).__name__ == "DoubleBackward"
        assert [t.tolist() for t in z.grad_fn.saved_tensors] == [[1.0, 1.0]]


def test_dir_shows_pytorchs_saved_names_and_no_private_field_under_that_prefix(torch_mod):
    for T in (minigrad, torch_mod):
        x = T.ones(2, 3, requires_grad=True)
        node = x.tanh().grad_fn
        assert [a for a in dir(node) if a.startswith("_saved_")] == ["_saved_result"]
        node = (x * x).grad_fn
        assert [a for a in dir(node) if a.startswith("_saved_")] == ["_saved_other",
                                                                      "_saved_self"]
