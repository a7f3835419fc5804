"""compare.trace_torch: PyTorch's own backward as a minigrad Trace.

The corpus test runs every corpus expression whose graph has the same shape on both engines
through `minigrad.trace` and through `compare.trace_torch` and asks for the same steps, the
same gradients and the same explanation (but for the header line that names the engine).
"""

from __future__ import annotations

import copy
import importlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import compare
import minigrad
from compare.against import _random_gradient
from compare.corpus import CORPUS
from compare.graph import graph_of
from compare.graph_compare import compare_graphs
from compare.source import from_source
from compare.torch_bridge import MINIGRAD, TORCH, as_array, call

ROOT = Path(__file__).resolve().parents[2]

# Corpus cases whose explanations cannot be identical, and why. Everything else must match.
NOT_IDENTICAL = {
    name: "PyTorch's MaxBackward0/MinBackward0 take one gradient (the indices output is not "
          "differentiable), minigrad's node has two outputs, so its explanation says "
          "`d out/d out[0]` where PyTorch's says `d out/d out`"
    for name in ("A.max(dim=1).values", "A.max(dim=0, keepdim=True).values",
                 "A.min(dim=1).values")
}
NOT_IDENTICAL.update({
    name: "a loss PyTorch composes in C++ (l1_loss, kl_div, label smoothing, probability "
          "targets) makes its constants and intermediate tensors there: trace_torch sees their "
          "nodes and gradients (the same steps and gradients, checked above) but cannot name "
          "the constants (`c`, where minigrad says `t`), show the intermediate values or read "
          "the scalars of MulBackward1/DivBackward1/MaskedFillBackward0"
    for name in ("F.l1_loss(x, t)", "F.l1_loss(x, t, reduction='none')",
                 "F.kl_div(log_softmax, p, 'batchmean')", "F.kl_div(x, log p, log_target=True)",
                 "F.cross_entropy(x, lab, label_smoothing=0.1)",
                 "F.cross_entropy(x, lab, weight, ignore_index, label_smoothing)",
                 "F.cross_entropy(x, probabilities)")
})

NOT_IDENTICAL.update({name: "minigrad's own recording knows which call made the nodes and "
                      "heads them (`▸ einsum('ij,jk->ik', A, B): ...`, the checkpointed block "
                      "and what its backward reruns); PyTorch's nodes do not say, so a trace of "
                      "PyTorch's backward lists the same steps and gradients without the headings"
                      for name in (
    "torch.einsum('ij,jk->ik', A, B)", "torch.einsum('bhqd,bhkd->bhqk', q, k) (attention scores)",
    "torch.einsum('ii', S) (trace)", "torch.einsum('i,j->ij', x, y) (outer)",
    "torch.einsum('ij,jk,kl->il', A, B, C)", "torch.tensordot(T, U, dims=2)",
    "checkpoint(block, x, use_reentrant=True)", "checkpoint(block, x, use_reentrant=False)")})

NOT_IDENTICAL.update({
    "F.normalize(x, dim=1)": "PyTorch's ClampMinBackward0 keeps the clamp's input, not its "
    "output: trace_torch cannot show the clamped norms' value",
    "F.bilinear(a, b, W, c)": "PyTorch's TrilinearBackward0 keeps its inputs, not its output: "
    "trace_torch cannot show the values of the product and of its view",
    "pad_packed_sequence(pack_padded_sequence(x, unsorted))": "pad_packed_sequence builds its "
    "output in C++ (a tensor full of the padding value, then narrow copies): trace_torch can "
    "show neither the padding tensor nor the copies' values, and reads a narrow as `t2[:3]`",
})


# trace_torch writes a layer node as the PyTorch call with its settings, read off the node
# (`conv2d(x, w, b, stride=2, padding=1)`); minigrad's own source forms write some settings in
# other words (`stride=(2, 2)`, max_pool2d's kernel only), and its norms list only the inputs
# that get gradients (`batch_norm(x, w, b)` where PyTorch was called with
# `batch_norm(x, m, v, w, b)`). Max pooling has two outputs in minigrad (values, indices) and one
# in PyTorch, native_group_norm three in PyTorch and one in minigrad (`d out/d out[0]`).
NOT_IDENTICAL.update({name: "layer settings written as PyTorch's call, or outputs counted "
                      "differently (see above)" for name in (
    "F.conv2d(x, w, b, stride=2, padding=1)",
    "F.conv2d(x, w, padding='same', dilation=2)", "F.conv1d(x, w, b, stride=2, padding=1)",
    "F.conv_transpose2d(x, w, b, stride=2, output_padding=1)", "F.unfold(x, 2, padding=1)",
    "F.fold(F.unfold(x, 3), (6, 6), 3)", "F.pad(x, (1, 2, 0, 1))", "relu(conv2d) -> max_pool2d",
    "F.max_pool2d(x, 2)", "F.max_pool2d(x, 3, 2, 1, ceil_mode=True)", "F.max_pool1d(x[0], 2)",
    "F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)", "F.adaptive_max_pool2d(x, (3, 2))",
    "F.group_norm(x, 3, w, b)", "F.batch_norm(x, None, None, w, b, training=True)",
    "F.batch_norm(x, m, v, w, b) (eval)", "F.layer_norm(x, (5,), w5, b5)")})


# -- helpers ---------------------------------------------------------------------------------
def _callables(case):
    arrays = {k: as_array(v) for k, v in case.arrays().items()}
    fn, torch_fn = case.fn, case.torch_fn or case.fn
    if isinstance(fn, str):
        fn = from_source(fn, None, list(arrays))[0]
    if isinstance(torch_fn, str):
        torch_fn = from_source(torch_fn, None, list(arrays))[1]
    return arrays, fn, torch_fn


def _both(case, torch):
    """The case traced by minigrad and by PyTorch (None when the graphs differ by design)."""
    arrays, fn, torch_fn = _callables(case)
    leaves = {k: TORCH.tensor(a, g) for k, (a, g) in arrays.items()}
    out = call(torch_fn, leaves, TORCH)
    mine = call(fn, {k: MINIGRAD.tensor(a, g) for k, (a, g) in arrays.items()}, MINIGRAD)
    if not compare_graphs(graph_of(mine), graph_of(out)).equal:
        return None
    seed = _random_gradient(tuple(out.shape))
    mg = minigrad.trace(lambda **kw: call(fn, kw, MINIGRAD),
                        gradient=None if seed is None else minigrad.tensor(seed),
                        **{k: MINIGRAD.tensor(a, g) for k, (a, g) in arrays.items()})
    th = compare.trace_torch(lambda **kw: call(torch_fn, kw, TORCH),
                             gradient=None if seed is None else torch.from_numpy(seed),
                             **{k: TORCH.tensor(a, g) for k, (a, g) in arrays.items()})
    return mg, th


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a.shape == b.shape and np.allclose(a, b, atol=1e-6, rtol=0)


def _rounded(trace):
    """Every recorded array rounded to 12 decimals, -0.0 made 0.0 (see the corpus test)."""
    def r(a):
        if a is None or np.asarray(a).dtype.kind != "f":
            return a
        return np.round(a, 12) + 0.0

    for n in trace.nodes:
        n.value = r(n.value)
    for leaf in trace.leaves:
        leaf.value, leaf.grad = r(leaf.value), r(leaf.grad)
    for s in trace.steps:
        s.grad_outputs = [r(g) for g in s.grad_outputs]
        s.grad_inputs = [r(g) for g in s.grad_inputs]
        for a in s.accumulations:
            a.before, a.after = r(a.before), r(a.after)
    return trace


def _graph_nodes(loss):
    found, stack = [], [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or any(node is f for f in found):
            continue
        found.append(node)
        stack.extend(n for n, _ in node.next_functions)
    return found


def _no_hooks_left(nodes) -> bool:
    """A fresh registration on each node finds its hook dicts otherwise empty."""
    for node in nodes:
        pre = node.register_prehook(lambda g: None)
        post = node.register_hook(lambda g_in, g_out: None)
        sizes = len(pre.hooks_dict_ref()), len(post.hooks_dict_ref())
        pre.remove()
        post.remove()
        if sizes != (1, 1):
            return False
    return True


# -- the corpus: same steps, same gradients, same explanation -------------------------------
def test_corpus_traces_match_minigrad(torch_mod):
    compared, differ = 0, []
    for case in CORPUS:
        both = _both(case, torch_mod)
        if both is None:  # graph shapes differ by design (batched matmul folding)
            continue
        mg, th = both
        compared += 1
        assert th.engine == "PyTorch"
        order = [(s.node, mg.node(s.node).name) for s in mg.steps]
        assert [(s.node, th.node(s.node).name) for s in th.steps] == order, case.name
        for a, b in zip(mg.steps, th.steps):
            assert all(_close(x, y) for x, y in zip(a.grad_outputs, b.grad_outputs)), case.name
            assert len(a.grad_inputs) == len(b.grad_inputs), case.name
            assert all(_close(x, y) for x, y in zip(a.grad_inputs, b.grad_inputs)), case.name
        for x, y in zip(mg.leaves, th.leaves):
            assert (x.label, x.node) == (y.label, y.node), case.name
            assert _close(x.grad, y.grad), case.name
        # The engines round differently in the last bits (-0.0 from a masked gradient in
        # one, 0.0 in the other; sums in another order): the texts are compared after
        # rounding every recorded array to 12 decimals.
        _rounded(mg)
        _rounded(th)
        for lang in ("en", "zh"):  # (source lines aside: each engine's callable is its own)
            ours = mg.explanation(lang=lang, timing=False, lines=False).splitlines()
            theirs = th.explanation(lang=lang, timing=False, lines=False).splitlines()
            assert ours[0] != theirs[0] and "PyTorch" in theirs[0]
            if ours[1:] != theirs[1:]:
                differ.append(case.name)
                break
    assert compared >= 160
    assert sorted(differ) == sorted(NOT_IDENTICAL)


def test_header_names_the_engine(torch_mod):
    x = torch_mod.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = torch_mod.tensor([4.0, 5.0, 6.0], requires_grad=True)
    t = compare.trace_torch((x * y).sum() * 3)
    assert t.explanation(timing=False).splitlines()[0] == \
        "Forward pass (recorded by PyTorch): 3 operations"
    assert t.explanation(lang="zh", timing=False).splitlines()[0] == \
        "前向传播（由 PyTorch 记录）：共 3 个运算"
    assert repr(t).startswith("<Trace (PyTorch): 3 operations, 2 leaves, 5 backward steps")


# -- the tensor form: names, values, labels --------------------------------------------------
def test_tensor_form_names_from_the_callers_variables(torch_mod):
    x = torch_mod.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = torch_mod.tensor([4.0, 5.0, 6.0], requires_grad=True)
    loss = (x * y).sum() * 3
    t = compare.trace_torch(loss)
    assert [n.label for n in t.nodes] == ["x", "y", "t1", "t2", "loss"]
    assert [n.source for n in t.nodes if not n.is_leaf] == ["x * y", "t1.sum()", "t2 * 3"]
    # values torch did not keep (x * y, its sum) are recomputed from x and y
    assert t.nodes[2].value.tolist() == [4.0, 10.0, 18.0] and t.nodes[3].value == 32.0
    assert x.grad.tolist() == [12.0, 15.0, 18.0] and t.leaf("x").grad.tolist() == [12, 15, 18]
    assert t.output is loss


def test_unnamed_leaves_are_labelled_as_minigrad_labels_them(torch_mod):
    def torch_loss():
        return (torch_mod.ones(2, requires_grad=True) * torch_mod.ones(2, requires_grad=True)
                ).sum()

    def minigrad_loss():
        return (minigrad.ones(2, requires_grad=True) * minigrad.ones(2, requires_grad=True)
                ).sum()

    ours, theirs = minigrad.trace(minigrad_loss()), compare.trace_torch(torch_loss())
    assert [n.label for n in theirs.nodes] == [n.label for n in ours.nodes] == \
        ["t1", "t2", "t3", "out"]
    assert [n.source for n in theirs.nodes] == [n.source for n in ours.nodes]


def test_accumulating_into_an_existing_grad(torch_mod):
    w = torch_mod.tensor([1.0, 2.0], requires_grad=True)
    w.grad = torch_mod.tensor([10.0, 10.0])
    t = compare.trace_torch((w * w).sum())
    (acc,) = [a for s in t.steps for a in s.accumulations]
    assert acc.leaf == "w" and acc.before.tolist() == [10, 10] and acc.after.tolist() == [12, 14]
    assert "w.grad = tensor([10., 10.]) + tensor([2., 4.]) = tensor([12., 14.])" in \
        t.explanation(timing=False)
    assert w.grad.tolist() == [12.0, 14.0]


def test_seed_gradient_and_string_inputs(torch_mod):
    t = compare.trace_torch("x * y", x=[1, 2], y=[3, 4], gradient=[1.0, -1.0])
    mg = minigrad.trace("x * y", x=[1, 2], y=[3, 4], gradient=minigrad.tensor([1.0, -1.0]))
    assert t.backwards[0].seeds[0].tolist() == [1.0, -1.0]
    assert t.explanation(timing=False).splitlines()[1:] == \
        mg.explanation(timing=False).splitlines()[1:]


def test_user_hooks_act_as_in_a_plain_backward(torch_mod):
    x = torch_mod.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 10)
    t = compare.trace_torch((x * 3).sum())
    assert x.grad.tolist() == [30.0, 30.0]
    assert t.steps[-1].grad_outputs[0].tolist() == [30.0, 30.0]  # what AccumulateGrad got


def test_hooks_are_removed_when_backward_fails(torch_mod):
    x = torch_mod.tensor([1.0, 2.0], requires_grad=True)
    out = x * 2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        compare.trace_torch(out)
    assert _no_hooks_left(_graph_nodes(out))


def test_bad_arguments(torch_mod):
    with pytest.raises(RuntimeError, match="does not require grad"):
        compare.trace_torch(torch_mod.ones(2).sum())
    with pytest.raises(TypeError, match="takes a torch tensor, a callable or a string"):
        compare.trace_torch(3)
    with pytest.raises(TypeError, match="takes no inputs"):
        compare.trace_torch(torch_mod.ones(1, requires_grad=True).sum(), x=[1.0])


def test_module_and_function_are_both_callable(torch_mod):
    import compare.trace_torch as module

    x = torch_mod.tensor([2.0], requires_grad=True)
    assert module((x * x).sum()).leaf("x").grad.tolist() == [4.0]
    assert callable(compare.trace_torch)


# -- a small CNN -----------------------------------------------------------------------------
def _cnn(torch):
    nn = torch.nn
    torch.manual_seed(0)

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(1, 2, 3, padding=1)
            self.relu = nn.ReLU()
            self.pool = nn.MaxPool2d(2)
            self.flatten = nn.Flatten()
            self.fc = nn.Linear(8, 3)

        def forward(self, x):
            return self.fc(self.flatten(self.pool(self.relu(self.conv(x)))))

    return Net(), torch.randn(2, 1, 4, 4), torch.tensor([0, 2]), nn.CrossEntropyLoss()


@pytest.fixture
def cnn_trace(torch_mod):
    model, x, y, criterion = _cnn(torch_mod)
    plain = copy.deepcopy(model)
    criterion(plain(x), y).backward()
    loss = criterion(model(x), y)
    t = compare.trace_torch(loss, params=dict(model.named_parameters()), retain_graph=True)
    return t, model, plain, loss


def test_cnn_trace_explains_every_step(cnn_trace):
    t, model, _, _ = cnn_trace
    names = [t.node(s.node).name for s in t.steps]
    assert {"ConvolutionBackward0", "MaxPool2DWithIndicesBackward0", "ReluBackward0",
            "AddmmBackward0", "LogSoftmaxBackward0", "NllLossBackward0"} <= set(names)
    en, zh = t.explanation(timing=False), t.explanation(lang="zh", timing=False)
    for s in t.steps:
        assert f"step {s.index} " in en and f"第 {s.index} 步" in zh
        assert t.node(s.node).name in en and t.node(s.node).name in zh
    # minigrad has these ops (minigrad/ops/convolution.py, pooling.py): their rules and remarks
    assert "dW = grad @ im2col(x)^T" in en and "im2col" in zh
    assert "(the gradient goes to the max of each window)" in en
    assert "梯度只流向每个窗口里的最大值" in zh
    assert "(this Function gives no formula)" not in en
    assert "t1   = conv2d(x, conv.weight, conv.bias, padding=1)" in en
    # large gradients as statistics, shapes of every op
    assert "shape (2, 2, 4, 4), mean" in en
    assert all(n.shape is not None for n in t.nodes)


def test_cnn_trace_names_every_parameter(cnn_trace):
    t, model, _, _ = cnn_trace
    params = dict(model.named_parameters())
    assert sorted(leaf.label for leaf in t.leaves) == sorted(params)
    assert all(leaf.is_param for leaf in t.leaves)
    for leaf in t.leaves:
        assert np.array_equal(leaf.grad, params[leaf.label].grad.numpy())


def test_cnn_grads_equal_a_plain_backward_and_no_hook_is_left(cnn_trace, monkeypatch,
                                                              torch_mod):
    t, model, plain, loss = cnn_trace
    for (name, p), q in zip(model.named_parameters(), plain.parameters()):
        assert torch_mod.equal(p.grad, q.grad), name
    assert _no_hooks_left(_graph_nodes(loss))
    module = importlib.import_module("compare.torch_graph")

    calls = []
    monkeypatch.setattr(module._Observer, "after", lambda *a: calls.append(a))
    loss.backward()  # the retained graph, a second time: nobody watching any more
    assert calls == []
    for p, q in zip(model.parameters(), plain.parameters()):
        assert torch_mod.allclose(p.grad, 2 * q.grad)


def test_cnn_trace_draws(cnn_trace, dot_bin, tmp_path):
    t, model, _, _ = cnn_trace
    source = t.to_dot().source
    for name, _ in model.named_parameters():
        assert name in source
    assert "ConvolutionBackward0" in source and "MaxPool2DWithIndicesBackward0" in source
    svg = t.render(tmp_path / "cnn.svg")
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") or "<svg" in text
    assert "conv.weight" in text and "fc.bias" in text


def test_cnn_callable_form_sees_every_value(torch_mod):
    model, x, y, criterion = _cnn(torch_mod)
    t = compare.trace_torch(lambda: criterion(model(x), y), params=model)
    assert all(n.value is not None for n in t.nodes)  # the convolution's output too
    assert sorted(leaf.label for leaf in t.leaves) == sorted(
        name for name, _ in model.named_parameters())
    assert [n.line is not None for n in t.nodes if not n.is_leaf].count(False) == 0


def test_cnn_trace_opens_in_the_player(cnn_trace, tmp_path):
    t = cnn_trace[0]
    page = t.to_html(tmp_path / "cnn.html")
    assert (tmp_path / "cnn.html").read_text(encoding="utf-8") == page
    for n in t.nodes:
        assert n.id in page and n.name in page
    for leaf in t.leaves:
        assert leaf.label in page
    assert "PyTorch" in page


def test_cnn_trace_steps_in_the_player(cnn_trace, browser, dot_bin, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    t = cnn_trace[0]
    path = tmp_path / "cnn.html"
    t.to_html(path)
    browser.get(path.as_uri())
    WebDriverWait(browser, 20).until(
        lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))
    for step in t.steps:
        browser.find_element(By.CSS_SELECTOR, 'button[data-action="next"]').click()
        assert browser.execute_script("return document.body.dataset.step") == str(step.index)
        current = browser.execute_script(
            "return [...document.querySelectorAll('g.node.current')]"
            ".map(g => g.querySelector(':scope > title').textContent)")
        assert current == [step.node]
        panel = browser.execute_script(
            "return document.querySelector('#step-panel').textContent")
        assert t.node(step.node).name in panel


# -- the command line -------------------------------------------------------------------------
def _run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_explain_torch_command_prints_minigrads_explanation(torch_mod, capsys, lang):
    expression = ["sum(x*y)*3", "x=1,2,3", "y=4,5,6", "--no-timing", "--lang", lang]
    theirs = _run("-m", "compare", "explain-torch", *expression)
    assert theirs.returncode == 0, theirs.stderr
    from minigrad.__main__ import main as minigrad_main

    assert minigrad_main(["explain", *expression]) == 0
    ours = capsys.readouterr().out
    assert theirs.stdout.splitlines()[1:] == ours.splitlines()[1:]
    assert theirs.stdout.splitlines()[0] != ours.splitlines()[0]
    assert "PyTorch" in theirs.stdout.splitlines()[0]


def test_explain_torch_command_refuses_bad_input(torch_mod, capsys):
    from compare.__main__ import main

    assert main(["explain-torch", "sum(x*)", "x=1,2"]) == 2
    assert capsys.readouterr().err.startswith("error:")
    assert main(["explain-torch", "sum(x)", "x=1,a"]) == 2
    assert "cannot read the values of x" in capsys.readouterr().err


# -- core fix: F.linear on a non-matrix input views it before transposing the weight ----------
@pytest.mark.parametrize("shape", [(3,), (2, 2, 3)])
def test_linear_on_other_inputs_makes_nodes_in_torchs_order(torch_mod, shape):
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal(shape), rng.standard_normal((4, 3)), rng.standard_normal(4)
    mg = minigrad.trace(lambda x, w, b: minigrad.nn.functional.linear(x, w, b).sum(),
                        x=x, w=w, b=b)
    th = compare.trace_torch(lambda x, w, b: torch_mod.nn.functional.linear(x, w, b).sum(),
                             x=torch_mod.tensor(x, requires_grad=True),
                             w=torch_mod.tensor(w, requires_grad=True),
                             b=torch_mod.tensor(b, requires_grad=True))
    assert [(n.name, n.label) for n in mg.nodes] == [(n.name, n.label) for n in th.nodes]
    assert [n.name for n in th.nodes][:4] == ["AccumulateGrad", "ViewBackward0",
                                              "AccumulateGrad", "TBackward0"]
    assert [s.node for s in mg.steps] == [s.node for s in th.steps]
