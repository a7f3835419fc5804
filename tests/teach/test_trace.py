"""minigrad.trace(...): the four forms, the records, JSON and graph export."""

from __future__ import annotations

import json

import numpy as np
import pytest

import minigrad
from minigrad.teach.trace import Trace, TraceBackward, TraceLeaf, TraceNode, TraceStep

X, Y = [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]


def leaves():
    return (minigrad.tensor(X, requires_grad=True, name="x"),
            minigrad.tensor(Y, requires_grad=True, name="y"))


def plain_grads():
    x, y = leaves()
    ((x * y).sum() * 3).backward()
    return x.grad.array, y.grad.array


def check(t: Trace, x, y):
    gx, gy = plain_grads()
    np.testing.assert_array_equal(x.grad.array, gx)
    np.testing.assert_array_equal(y.grad.array, gy)
    np.testing.assert_array_equal(t.leaf("x").grad, gx)
    np.testing.assert_array_equal(t.leaf("y").grad, gy)
    assert [t.node(s.node).name for s in t.steps] == [
        "MulBackward0", "SumBackward0", "MulBackward0", "AccumulateGrad", "AccumulateGrad"]


def test_tensor_form_matches_backward():
    x, y = leaves()
    t = minigrad.trace((x * y).sum() * 3)
    check(t, x, y)


def test_callable_form_matches_backward_and_records_source_lines():
    x, y = leaves()
    t = minigrad.trace(lambda: (x * y).sum() * 3)
    check(t, x, y)
    ops = [n for n in t.nodes if not n.is_leaf]
    assert all(n.line.startswith("test_trace.py:") and "minigrad.trace(lambda" in n.line
               for n in ops)
    np.testing.assert_array_equal(t.output.array, 96.0)


def test_callable_with_inputs_gets_them_as_named_leaves():
    t = minigrad.trace(lambda x, y: (x * y).sum() * 3, x=X, y=Y)
    np.testing.assert_array_equal(t.leaf("x").grad, plain_grads()[0])
    assert t.leaf("y").value.dtype == np.float32


def test_string_form_matches_backward():
    t = minigrad.trace("sum(x*y)*3", x=X, y=[4, 5, 6])
    gx, gy = plain_grads()
    np.testing.assert_array_equal(t.leaf("x").grad, gx)
    np.testing.assert_array_equal(t.leaf("y").grad, gy)
    assert [n.source for n in t.nodes if not n.is_leaf] == ["x * y", "t1.sum()", "t2 * 3"]


def test_with_form_records_a_whole_step_with_variable_names():
    x, y = leaves()
    with minigrad.trace() as t:
        h = x * y
        loss = h.sum() * 3
        loss.backward()
    check(t, x, y)
    labels = [n.label for n in t.nodes]
    assert labels == ["x", "y", "h", "t1", "loss"]
    assert t.backwards[0].roots == [t.nodes[-1].id]


def test_with_form_records_several_backward_passes():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    with minigrad.trace() as t:
        for _ in range(2):
            (x * x).sum().backward()
    assert len(t.backwards) == 2
    assert [a.after.tolist() for s in t.steps for a in s.accumulations] == [[2, 4], [4, 8]]
    np.testing.assert_array_equal(t.leaf("x").grad, [4.0, 8.0])
    assert "Backward pass 2 from" in t.explanation()


def test_a_trace_records_only_once():
    t = minigrad.trace()
    with t:
        pass
    with pytest.raises(RuntimeError, match="already recorded"):
        with t:
            pass


def test_gradient_and_retain_graph_pass_through():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    out = x * x
    t = minigrad.trace(out, gradient=minigrad.tensor([1.0, 10.0]), retain_graph=True)
    np.testing.assert_array_equal(x.grad.array, [2.0, 40.0])
    out.backward(minigrad.tensor([1.0, 1.0]))  # the graph was retained
    np.testing.assert_array_equal(x.grad.array, [4.0, 44.0])
    np.testing.assert_array_equal(t.backwards[0].seeds[0], [1.0, 10.0])
    assert "seed gradient given: tensor([ 1., 10.])" in t.explanation()


def test_errors_of_backward_come_through():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        minigrad.trace(lambda: x * 2)
    with pytest.raises(TypeError, match="Tensor, a callable or a string"):
        minigrad.trace(3)
    with pytest.raises(TypeError, match="not a Tensor"):
        minigrad.trace(lambda: 3)


def test_labels_name_then_param_then_variable_then_counter():
    w = minigrad.tensor([1.0, 2.0], requires_grad=True)
    b = minigrad.tensor([0.5, 0.5], requires_grad=True, name="bias")
    anonymous = [minigrad.tensor([1.0, 1.0], requires_grad=True)]
    t = minigrad.trace(lambda: ((w * anonymous[0]) + b).sum(), params={"fc.weight": w})
    assert [n.label for n in t.nodes] == ["fc.weight", "t1", "t2", "bias", "t3", "out"]
    assert t.leaf("fc.weight").is_param and not t.leaf("bias").is_param


def test_constants_and_settings_are_recorded():
    x = minigrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, name="x")
    t = minigrad.trace(lambda: (x.sum(dim=1) * 2.5).sum())
    op = [n for n in t.nodes if n.name == "SumBackward1"][0]
    assert op.attrs == {"dims": (1,), "keepdim": False}
    assert op.source == "x.sum(dim=1)"
    mul = [n for n in t.nodes if n.name == "MulBackward0"][0]
    assert mul.args == ["t1", "2.5"] and mul.inputs[1] is None


def test_records_keep_values_even_though_backward_freed_the_graph():
    x, y = leaves()
    t = minigrad.trace((x * y).sum() * 3)
    mul = t.nodes[2]
    assert mul.name == "MulBackward0" and [s for s, _ in mul.saved] == ["x", "y"]
    np.testing.assert_array_equal(mul.saved[1][1], Y)
    step = t.steps[2]
    np.testing.assert_array_equal(step.grad_inputs[0], [12.0, 15.0, 18.0])
    assert step.summed_dims == [None, None]


def test_graph_is_plain_data_with_ids_and_edges():
    x, y = leaves()
    t = minigrad.trace(lambda: (x * y).sum() * 3)
    g = t.graph
    assert [n["id"] for n in g["nodes"]] == ["n1", "n2", "n3", "n4", "n5"]
    assert [(n["name"], n["label"], n["steps"]) for n in g["nodes"]] == [
        ("AccumulateGrad", "x", [4]), ("AccumulateGrad", "y", [5]),
        ("MulBackward0", "t1", [3]), ("SumBackward0", "t2", [2]), ("MulBackward0", "out", [1])]
    assert g["edges"] == [{"from": "n1", "to": "n3", "input": 0},
                          {"from": "n2", "to": "n3", "input": 1},
                          {"from": "n3", "to": "n4", "input": 0},
                          {"from": "n4", "to": "n5", "input": 0}]
    assert g["outputs"] == ["n5"]


def test_to_json_round_trips_and_summarises_big_arrays():
    w = minigrad.tensor(np.full((40, 40), 0.5, np.float32), requires_grad=True, name="w")
    x = minigrad.tensor([0.0, 1.0], requires_grad=True, name="x")
    with np.errstate(all="ignore"):
        t = minigrad.trace(lambda: (w * 2).sum() + (x / x).sum())
    data = json.loads(t.to_json(max_values=100))
    w_leaf = [leaf for leaf in data["leaves"] if leaf["label"] == "w"][0]
    assert w_leaf["grad"] == {"shape": [40, 40], "mean": 2.0, "absmax": 2.0, "norm": 80.0}
    x_leaf = [leaf for leaf in data["leaves"] if leaf["label"] == "x"][0]
    assert x_leaf["grad"]["values"] == ["nan", 0.0]  # non-finite values as strings
    step = data["backwards"][0]["steps"][0]
    assert set(step) >= {"index", "node", "grad_outputs", "grad_inputs", "summed_dims",
                         "accumulations", "hooks", "seconds"}


def test_from_records_builds_an_explainable_trace_and_checks_ids():
    nodes = [TraceNode("a", "AccumulateGrad", "w", shape=(2,)),
             TraceNode("m", "MulBackward0", "t1", inputs=["a", None], args=["w", "3"],
                       shape=(2,), formula="d(a*b)/da = b ;  d(a*b)/db = a"),
             TraceNode("s", "SumBackward0", "loss", inputs=["m"], args=["t1"], shape=())]
    steps = [TraceStep(1, "s", [np.asarray(1.0)], [np.ones(2)]),
             TraceStep(2, "m", [np.ones(2)], [np.full(2, 3.0), None]),
             TraceStep(3, "a", [np.full(2, 3.0)], [])]
    t = Trace.from_records(nodes, [TraceLeaf("w", "a", (2,))], [TraceBackward(["s"], [None],
                                                                             steps)],
                           engine="PyTorch")
    assert [n.source for n in t.nodes[1:]] == ["w * 3", "t1.sum()"]
    assert t.nodes[2].formula == "d(sum a)/da_i = 1"  # filled in from minigrad's own op
    assert "d(a*c)/da = c   (c = 3 is a constant" in t.explanation()
    assert t.graph["engine"] == "PyTorch"
    with pytest.raises(ValueError, match="not among the nodes"):
        Trace.from_records([TraceNode("m", "MulBackward0", inputs=["zz"])])
    with pytest.raises(ValueError, match="unique"):
        Trace.from_records([TraceNode("m", "X"), TraceNode("m", "Y")])
    with pytest.raises(ValueError, match="unknown node"):
        Trace.from_records(nodes, [], [TraceBackward(["s"], [None], [TraceStep(1, "q")])])


def test_create_graph_backward_inside_with_does_not_add_forward_ops():
    x = minigrad.tensor([2.0], requires_grad=True, name="x")
    with minigrad.trace() as t:
        (g,) = minigrad.autograd.grad((x ** 3).sum(), x, create_graph=True)
    assert [n.source for n in t.nodes if not n.is_leaf] == ["x ** 3", "t1.sum()"]
    np.testing.assert_array_equal(g.array, [12.0])


def test_repr_is_short():
    x, y = leaves()
    assert repr(minigrad.trace((x * y).sum())) == (
        "<Trace (minigrad): 2 operations, 2 leaves, 4 backward steps>")


def test_an_update_inside_the_with_block_leaves_the_recorded_values_alone():
    # the values, saved values and leaf values are those of the forward pass, even though the
    # SGD step (in place, inside the block) changes the weight before the records are built
    w = minigrad.tensor([[1.0, 2.0]], requires_grad=True)
    x = minigrad.tensor([[3.0, 4.0]])
    with minigrad.trace() as t:
        y = (x @ w.t()).sum()
        y.backward()
        with minigrad.no_grad():
            w -= 0.5 * w.grad
    assert w.array.tolist() == [[-0.5, 0.0]]
    leaf, transpose, mm = t.nodes[0], t.nodes[1], t.nodes[2]
    assert leaf.value.tolist() == [[1.0, 2.0]] and t.leaf("w").value.tolist() == [[1.0, 2.0]]
    assert transpose.name == "TBackward0" and transpose.value.tolist() == [[1.0], [2.0]]
    assert mm.name == "MmBackward0"
    assert [(s, v.tolist()) for s, v in mm.saved] == [("saved[0]", [[3.0, 4.0]]),
                                                      ("t1", [[1.0], [2.0]])]
    assert "-0.5" not in t.explanation()


def test_a_value_is_copied_once_however_many_records_show_it():
    w = minigrad.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    x = minigrad.tensor(np.ones((4, 3)))
    with minigrad.trace() as t:
        h = x @ w.t()
        (h * h).sum().backward()
    leaf, transpose, mm, mul = t.nodes[0], t.nodes[1], t.nodes[2], t.nodes[3]
    assert transpose.name == "TBackward0" and mul.name == "MulBackward0"
    # w.t() is recorded as the transposed view of w's copy, not as a second copy
    assert np.shares_memory(transpose.value, leaf.value)
    np.testing.assert_array_equal(transpose.value, w.array.T)
    # h, the product's output, is the same copy that the multiplication saved (twice)
    assert all(v is mm.value for _, v in mul.saved)
    assert not np.shares_memory(mm.value, h.array)


def test_a_view_that_is_changed_in_place_later_keeps_its_value():
    base = minigrad.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with minigrad.trace() as t:
        y = base * 1
        v = y[1:3]
        v.sum().backward()
        with minigrad.no_grad():
            y.mul_(10)
    views = [n for n in t.nodes if n.name == "SliceBackward0"]
    assert views and views[0].value.tolist() == [2.0, 3.0]
    assert v.array.tolist() == [20.0, 30.0]


def test_a_saved_result_shows_the_value_backward_read():
    x = minigrad.tensor([-1.0, 2.0], requires_grad=True)
    with minigrad.trace() as t:
        y = x.relu()
        (y * 3).sum().backward()
        with minigrad.no_grad():
            y.mul_(10)
    relu = next(n for n in t.nodes if n.name == "ReluBackward0")
    assert [(s, v.tolist()) for s, v in relu.saved] == [("result", [0.0, 2.0])]
    assert relu.value.tolist() == [0.0, 2.0] and y.array.tolist() == [0.0, 20.0]


def test_a_constant_given_new_data_between_two_ops_is_recorded_with_each_value():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    c = minigrad.tensor([3.0, 4.0])
    with minigrad.trace() as t:
        a = x * c
        c.data = minigrad.tensor([5.0, 6.0])  # other memory: no in-place write, no new version
        b = x * c
        (a + b).sum().backward()
    first, second = [n for n in t.nodes if n.name == "MulBackward0"]
    # (x needs a gradient and c does not: each product keeps c alone, for d/dx = c)
    assert [(s, v.tolist()) for s, v in first.saved] == [("saved[1]", [3.0, 4.0])]
    assert [(s, v.tolist()) for s, v in second.saved] == [("saved[1]", [5.0, 6.0])]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("key", [np.s_[::-1, 1::2], np.s_[1:, :], np.s_[:0], np.s_[2, ::-2]])
def test_a_view_of_a_copy_matches_the_view_of_the_original(order, key):
    from minigrad.teach.copies import same_view as _same_view

    base = np.asarray(np.arange(12.0).reshape(3, 4), order=order)
    copy = np.array(base)
    view = base[key]
    same = _same_view(view, base, copy)
    np.testing.assert_array_equal(same, view)
    assert same.shape == view.shape and (same.size == 0 or np.shares_memory(same, copy))
    # memory that is not the base's (another array, another dtype) is not mapped into the copy
    assert _same_view(np.arange(12.0)[:3], base, copy) is None
    assert _same_view(base.view(np.int64)[key], base, copy) is None


@pytest.mark.parametrize("change", ["zero_", "clip", "setitem", "zero_grad"])
def test_changing_grad_in_place_inside_the_block_leaves_the_recorded_gradients_alone(change):
    # the classic loop: backward, update, then clear (or clip) .grad in place; the trace keeps
    # the gradients as backward computed them (the first .grad is the step's own array)
    class Model(minigrad.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = minigrad.nn.Parameter(minigrad.tensor([1.0, 2.0]))

    model = Model()
    w = model.w
    with minigrad.trace() as t:
        loss = (w * w).sum()
        loss.backward()
        with minigrad.no_grad():
            w -= 0.1 * w.grad
        if change == "zero_":
            w.grad.zero_()
        elif change == "clip":
            minigrad.nn.utils.clip_grad_value_([w], 0.5)
        elif change == "setitem":
            w.grad[0] = 7.0
        else:
            model.zero_grad(set_to_none=False)
    assert t.leaf("w").grad.tolist() == [2.0, 4.0]
    mul, acc = t.steps[1], t.steps[2]
    assert [g.tolist() for g in mul.grad_inputs] == [[1.0, 2.0], [1.0, 2.0]]
    assert acc.grad_outputs[0].tolist() == [2.0, 4.0]
    assert acc.accumulations[0].after.tolist() == [2.0, 4.0]
    assert "w.grad = tensor([2., 4.])" in t.explanation()


def test_a_grad_from_before_the_block_is_recorded_as_it_was():
    w = minigrad.tensor([1.0, 2.0], requires_grad=True)
    (w * 3).sum().backward()  # w.grad = [3, 3], before the trace
    with minigrad.trace() as t:
        (w * w).sum().backward()  # w.grad = [3, 3] + [2, 4]
        w.grad.zero_()
    acc = t.steps[-1].accumulations[0]
    assert acc.before.tolist() == [3.0, 3.0] and acc.after.tolist() == [5.0, 7.0]


def test_a_with_block_that_runs_no_backward_records_the_forward_graph():
    w = minigrad.tensor([1.0, 2.0], requires_grad=True)
    h = w * 2  # recorded before the trace began
    with minigrad.trace() as t:
        y = (h * w).sum()
        with minigrad.no_grad():
            w -= 1.0  # after the forward op read w: the record keeps what it read
    assert [n.name for n in t.nodes] == ["AccumulateGrad", "MulBackward0", "MulBackward0",
                                         "SumBackward0"]
    assert t.nodes[0].value.tolist() == [1.0, 2.0] and t.backwards == []
    assert [n.source for n in t.nodes[1:]] == ["w * 2", "t1 * w", "t2.sum()"]
    assert t.nodes[1].value is None  # (made before the trace: its value was never seen)
    text = t.explanation()
    assert "y    = t2.sum()     SumBackward0    shape ()    tensor(10.)" in text
    assert "No backward pass was run." in text and "Leaves: w.grad = None" in text
    assert y.item() == 10.0


def test_changing_grad_in_place_after_the_block_leaves_the_trace_alone():
    # nobody is told of in-place changes once the block is over: the trace copies what it
    # shares with a .grad when it ends
    w = minigrad.tensor([1.0, 2.0], requires_grad=True)
    with minigrad.trace() as t:
        (w * w).sum().backward()
    w.grad.zero_()
    assert t.leaf("w").grad.tolist() == [2.0, 4.0]
    assert t.steps[-1].accumulations[0].after.tolist() == [2.0, 4.0]
    assert [g.tolist() for g in t.steps[1].grad_inputs] == [[1.0, 2.0], [1.0, 2.0]]
    assert t.steps[-1].grad_outputs[0].tolist() == [2.0, 4.0]
