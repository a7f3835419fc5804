"""Checks, run on torch, of what the lessons and the differences pages say PyTorch does
(each is listed with the sentences it checks in `pytorch_claims.CLAIMS`). Each takes the torch
module and a temporary folder, and raises if PyTorch does not do what the sentence says."""

from __future__ import annotations

import inspect
import subprocess
import sys
import threading
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import minigrad
from minigrad.nn.utils import grad_report
from minigrad.testing import gradcheck


def leaves_are_reached_through_accumulate_grad(torch: Any, tmp: Path) -> None:
    x = torch.tensor([1., 2.], requires_grad=True)
    node = (x * 2).grad_fn.next_functions[0][0]
    assert node.name() == "torch::autograd::AccumulateGrad" and node.variable is x


def linear_is_a_transpose_and_an_addmm(torch: Any, tmp: Path) -> None:
    out = torch.nn.Linear(3, 2)(torch.ones(4, 3))
    names = [fn.name() for fn, _ in out.grad_fn.next_functions if fn is not None]
    assert out.grad_fn.name() == "AddmmBackward0" and "TBackward0" in names


def gradcheck_is_called_the_same_way_and_says_less(torch: Any, tmp: Path) -> None:
    ours = list(inspect.signature(gradcheck).parameters)
    theirs = list(inspect.signature(torch.autograd.gradcheck).parameters)
    assert theirs[1:6] == ours[1:6] == ["inputs", "eps", "atol", "rtol", "raise_exception"]
    messages = []
    for lib, check in ((torch, torch.autograd.gradcheck), (minigrad, gradcheck)):
        x = lib.tensor([1., 2., -1.5], dtype=lib.float64, requires_grad=True)
        with pytest.raises(Exception) as caught:  # noqa: PT011 (each engine its own error)
            check(Cube(lib).apply, (x,))
        messages.append(str(caught.value))
    assert len(messages[0]) < len(messages[1])


def Cube(lib: Any) -> type:  # noqa: N802 (a class factory: a Function of either engine)
    class BadCube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):  # 3x instead of 3x^2
            (x,) = ctx.saved_tensors
            return grad * 3 * x
    return BadCube


def gradcheck_prints_a_row_per_input_element(torch: Any, tmp: Path) -> None:
    class Spread(torch.autograd.Function):  # R^2 -> R^3, its backward wrong
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return torch.stack([x[0] * x[1], x[1], x[0]])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return torch.stack([g[0] * x[1], g[0] * x[0] * 2 + g[1]])

    x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
    with pytest.raises(Exception) as caught:  # noqa: PT011
        torch.autograd.gradcheck(Spread.apply, (x,))
    numerical = str(caught.value).split("numerical:")[1].split("analytical:")[0]
    rows = [r for r in numerical.splitlines() if "[" in r]
    assert len(rows) == 2 and rows[0].count(",") >= 2  # 2 input elements, 3 outputs each


def hooks_detach_and_no_grad_are_pytorchs(torch: Any, tmp: Path) -> None:
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    seen = []
    y.register_hook(seen.append)
    assert not y.detach().requires_grad
    with torch.no_grad():
        assert (x * 2).grad_fn is None
    y.sum().backward()
    assert len(seen) == 1


def a_bool_tensor_times_a_float_is_float32(torch: Any, tmp: Path) -> None:
    assert (torch.tensor([True, False]) * 0.1).dtype == torch.float32


def trace_torch_explains_a_real_torch_model(torch: Any, tmp: Path) -> None:
    from compare import trace_torch

    model = torch.nn.Linear(2, 1)
    t = trace_torch(lambda: model(torch.ones(3, 2)).sum(), params=model)
    assert t.engine == "PyTorch" and len(t.steps) >= 4 and "Backward pass" in t.explanation()


def data_loader_yields_batches(torch: Any, tmp: Path) -> None:
    from torch.utils.data import DataLoader, TensorDataset

    batches = list(DataLoader(TensorDataset(torch.arange(5.), torch.arange(5)), batch_size=2))
    assert [len(b[0]) for b in batches] == [2, 2, 1] and batches[0][1].tolist() == [0, 1]


def the_engine_sums_a_broadcast_gradient_a_function_returns(torch: Any, tmp: Path) -> None:
    class Mul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad):  # b's gradient left in the output's shape
            a, b = ctx.saved_tensors
            return grad * b, grad * a

    a = torch.tensor([1., 2., 3.], requires_grad=True)
    b = torch.tensor(2., requires_grad=True)
    Mul.apply(a, b).sum().backward()
    assert b.grad.shape == () and b.grad.item() == 6.


def an_address_is_the_objects_own(torch: Any, tmp: Path) -> None:
    node = (torch.ones(1, requires_grad=True) * 2).grad_fn
    assert f" at 0x{id(node):x}" in repr(node).lower()


def minigrad_seeds_numpy_not_torch(torch: Any, tmp: Path) -> None:
    torch.manual_seed(0)
    mine = torch.randn(3)
    torch.manual_seed(0)
    minigrad.manual_seed(0)
    assert torch.equal(torch.randn(3), mine)  # minigrad's seed left torch's generator alone
    minigrad.manual_seed(0)
    assert not np.allclose(minigrad.randn(3).numpy(), mine.numpy())
    torch.manual_seed(0)
    minigrad.manual_seed(0)
    a, b = torch.randn(200_000).numpy(), minigrad.randn(200_000).numpy()
    assert abs(a.mean() - b.mean()) < 0.01 and abs(a.std() - b.std()) < 0.01  # same N(0, 1)
    assert 0 <= float(torch.rand(1000).min()) and float(torch.rand(1000).max()) < 1


def pytorch_has_no_recorder_and_trace_is_a_diagonal_sum(torch: Any, tmp: Path) -> None:
    assert torch.trace(torch.tensor([[1., 2.], [3., 4.]])).item() == 5.
    assert not hasattr(torch.Tensor, "explain") and not hasattr(torch.autograd, "backward_steps")
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    runs = []
    y.grad_fn.register_prehook(lambda grads: runs.append(grads))
    y.sum().backward()
    assert len(runs) == 1  # node hooks see the steps go by


def pytorch_ignores_a_functions_formula(torch: Any, tmp: Path) -> None:
    class Double(torch.autograd.Function):
        formula = "d(2a)/da = 2"

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = torch.ones(2, requires_grad=True)
    out = Double.apply(x)
    out.sum().backward()
    assert x.grad.tolist() == [2., 2.] and not hasattr(out.grad_fn, "formula")


def torch_tensor_has_no_name(torch: Any, tmp: Path) -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'name'"):
        torch.tensor([1.], name="x")
    t = torch.ones(2)
    assert t.name is None
    with pytest.raises(AttributeError, match="not writable"):
        t.name = "w"


def pytorch_has_no_grad_report_and_minigrads_reads_torch(torch: Any, tmp: Path) -> None:
    assert not hasattr(torch.nn.utils, "grad_report")
    model = torch.nn.Linear(2, 1)
    model(torch.ones(1, 2)).sum().backward()
    assert [r.name for r in grad_report(model, show=False)] == ["weight", "bias"]


def the_profiler_records_the_same_order_as_the_ddp_trace(torch: Any, tmp: Path) -> None:
    from compare.ddp_example import trace_on_two_processes

    rank0 = trace_on_two_processes()[0]
    profiled = rank0["profiled"]
    assert profiled.count("c10d::allreduce_") == 2
    nodes = [name for _, name, _ in rank0["steps"]]
    assert [p.replace("torch::autograd::", "") for p in profiled
            if p != "c10d::allreduce_"] == nodes
    assert rank0["all_reduces_with_bucket_cap_mb"] == 1


def pytorch_keeps_the_gradients_of_a_failed_backward(torch: Any, tmp: Path) -> None:
    x = torch.tensor([-1., 0.25, 4.], requires_grad=True)
    a = torch.tensor([1., 2.], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly(), pytest.raises(RuntimeError, match="Sqrt"):
            (torch.where(x > 0, x.sqrt(), torch.zeros(3)).sum() + (a * 2).sum()).backward()
    assert a.grad.tolist() == [2., 2.]


def numpy_data_and_cuda_are_as_said(torch: Any, tmp: Path) -> None:
    x = torch.ones(2)
    x.numpy()[0] = 5.
    assert x[0].item() == 5. and not hasattr(x, "array")
    p = torch.ones(2, requires_grad=True)
    assert type(p.data) is torch.Tensor and not p.data.requires_grad
    p.data[1] = 7.
    assert p[1].item() == 7.
    assert torch.cuda.is_available() is False
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        torch.ones(1).cuda()


def float32_is_the_default_and_sums_differ_in_the_last_bits(torch: Any, tmp: Path) -> None:
    assert torch.get_default_dtype() == torch.float32 == torch.ones(1).dtype
    values = np.random.default_rng(0).standard_normal(100_000).astype(np.float32)
    theirs, ours = torch.from_numpy(values).sum().item(), minigrad.tensor(values).sum().item()
    assert theirs != ours and abs(theirs - ours) < 1e-3 * abs(theirs)


def each_node_runs_once_after_all_its_gradients(torch: Any, tmp: Path) -> None:
    x = torch.tensor([1., 2.], requires_grad=True)
    z = x * x + x  # x's AccumulateGrad is reached along two paths
    acc = z.grad_fn.next_functions[1][0]
    runs = []
    acc.register_prehook(lambda grads: runs.append(grads[0].tolist()))
    z.sum().backward()
    assert runs == [[3., 5.]]  # once, with both contributions summed (2x + 1)


def pytorch_has_only_autograd_function(torch: Any, tmp: Path) -> None:
    assert not hasattr(torch, "Function") and hasattr(torch.autograd, "Function")


def grad_mode_is_per_thread_and_anomaly_mode_per_process(torch: Any, tmp: Path) -> None:
    seen = {}

    def look() -> None:
        seen.update(grad=torch.is_grad_enabled(), anomaly=torch.is_anomaly_enabled())

    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (anomaly mode says it is slow)
        with torch.autograd.set_detect_anomaly(True):
            thread = threading.Thread(target=look)
            thread.start()
            thread.join()
    assert seen == {"grad": True, "anomaly": True}


def a_refused_backward_has_called_retain_grad(torch: Any, tmp: Path) -> None:
    x = torch.ones(2, requires_grad=True)
    h, c = x * 2, torch.ones(2)
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has "
                                           "requires_grad=False"):
        (h * c).sum().backward(inputs=[h, c])
    assert h.retains_grad


def long_float32_sums_in_pytorch(torch: Any, tmp: Path) -> None:
    threads = torch.get_num_threads()
    try:
        expand_sum = {}
        for n in (1, 2):  # (the expanded view's sum depends on PyTorch's threads)
            torch.set_num_threads(n)
            total = torch.ones(3).expand(2 ** 25, 3).sum()
            expand_sum[n] = (str(total), total.item())
            assert torch.ones(2 ** 25, 3).mean(0).tolist() == [1., 1., 1.]
            assert str(torch.full((2 ** 25, 2), 0.1).norm(dim=0)) == "tensor([512., 512.])"
    finally:
        torch.set_num_threads(threads)
    assert expand_sum == {1: ("tensor(67108864.)", 67108864.0),
                          2: ("tensor(1.2303e+08)", 123032912.0)}
    # (minigrad's own sums, 100663296 and 579.2619, are checked in tests/core/
    # test_sum_precision.py)
    assert str(minigrad.tensor(100663296.)) == "tensor(1.0066e+08)"


def messages_are_pytorchs_words(torch: Any, tmp: Path) -> None:
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got "
                                           "Float"):
        torch.nn.functional.nll_loss(torch.randn(2, 3), torch.tensor([0., 1.]))
    sentence = ("The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
                "dimension 0")
    with pytest.raises(RuntimeError) as theirs:
        torch.ones(2) + torch.ones(3)
    with pytest.raises(RuntimeError) as ours:
        minigrad.ones(2) + minigrad.ones(3)
    assert str(theirs.value) == sentence and str(ours.value).endswith(sentence)
    assert str(ours.value).startswith("add: shapes (2,) and (3,)")


def pytorch_returns_inf_and_nan_silently(torch: Any, tmp: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (torch.tensor([1., 0.]) / 0).isinf()[0] and (torch.tensor([1., 0.]) / 0).isnan()[1]
        assert torch.tensor([0.]).log().item() == float("-inf")


def pytorch_warns_for_a_full_backward_hook_without_inputs(torch: Any, tmp: Path) -> None:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        layer = torch.nn.Linear(2, 2)
        layer.register_full_backward_hook(lambda *args: None)
        layer(torch.ones(1, 2)).sum().backward()
    assert "Full backward hook is firing when gradients are computed with respect to module " \
           "outputs since no inputs require gradients" in " ".join(str(w.message) for w in seen)


# PyTorch gives these warnings once per process (TORCH_WARN_ONCE): seen in a fresh one
ONCE = """
import torch, warnings
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter('always')
    for _ in range(2):
        x = torch.tensor(3., requires_grad=True)
        (x ** 3).backward(create_graph=True)
        torch.nn.Conv2d(1, 1, 2, padding='same')(torch.ones(1, 1, 3, 3))
said = [str(w.message) for w in seen]
print(x.grad.grad_fn.name(), sum('reference cycle' in m for m in said),
      sum('may require a zero-padded copy of the input' in m for m in said))
"""


def create_graph_and_even_same_padding_warn_once(torch: Any, tmp: Path) -> None:
    out = subprocess.run([sys.executable, "-c", ONCE], capture_output=True, text=True,
                         timeout=300, check=True).stdout.split()
    assert out == ["torch::autograd::CopyBackwards", "1", "1"]


def a_view_changed_under_no_grad_reads_as_strided(torch: Any, tmp: Path) -> None:
    base = torch.ones(3, requires_grad=True) * 1
    view = base[0]
    with torch.no_grad():
        view.mul_(2)
    assert view.grad_fn.name() == "AsStridedBackward0"


def pytorch_saves_a_record_per_storage(torch: Any, tmp: Path) -> None:
    def records(path: Path) -> list[str]:
        with zipfile.ZipFile(path) as archive:
            return [n for n in archive.namelist() if "/data/" in n]

    w = torch.ones(2, 3)
    torch.save({"w": w, "row": w[0]}, tmp / "torch.pt")
    loaded = torch.load(tmp / "torch.pt")
    loaded["w"][0, 0] = 5.
    assert len(records(tmp / "torch.pt")) == 1 and loaded["row"][0].item() == 5.
    ours = minigrad.load(tmp / "torch.pt")  # minigrad keeps the sharing of PyTorch's file
    ours["w"][0, 0] = 5.
    assert ours["row"][0].item() == 5.
    w = minigrad.ones(2, 3)
    minigrad.save({"w": w, "row": w[0]}, tmp / "minigrad.pt")
    loaded = torch.load(tmp / "minigrad.pt")
    loaded["w"][0, 0] = 5.
    assert len(records(tmp / "minigrad.pt")) == 1 and loaded["row"][0].item() == 5.


def two_warnings_say_where_pytorch_raised_them(torch: Any, tmp: Path) -> None:
    x = torch.ones((), requires_grad=True)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        float(x)
        torch.add(torch.ones(2), 1, out=torch.empty(3))
    assert len(seen) == 2 and all("(Triggered internally at" in str(w.message) for w in seen)


def nll_loss_and_max_pack_more_in_pytorch(torch: Any, tmp: Path) -> None:
    """PyTorch's nll_loss packs its total weight (a 0-d tensor) and max(dim) its indices."""
    x = torch.randn(3, 4, requires_grad=True)
    log_p, shapes = x.log_softmax(1), []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: shapes.append(t.shape) or t,
                                                  lambda t: t):
        torch.nn.functional.nll_loss(log_p, torch.tensor([0, 1, 2]))
        x.max(1)
    assert [tuple(s) for s in shapes] == [(3, 4), (3,), (), (3,)]
def norm_except_dim_of_everything_fails_in_forward_mode(torch: Any, tmp: Path) -> None:
    v = np.linspace(0.5, 2.0, 6).reshape(1, 2, 3)
    fw = torch.autograd.forward_ad
    with fw.dual_level(), pytest.raises(RuntimeError, match="Trying to set a forward gradient "
                                        "that has a different size than that of the original"):
        torch.norm_except_dim(fw.make_dual(torch.tensor(v), torch.ones(1, 2, 3,
                                                                       dtype=torch.float64)), 2, -1)
    fw_mg = minigrad.autograd.forward_ad
    with fw_mg.dual_level():
        dual = fw_mg.make_dual(minigrad.tensor(v), minigrad.ones(1, 2, 3, dtype=minigrad.float64))
        tangent = fw_mg.unpack_dual(minigrad.norm_except_dim(dual, 2, -1)).tangent
    assert abs(tangent.item() - v.sum() / np.sqrt((v ** 2).sum())) < 1e-12


def a_loss_takes_a_list_of_labels_where_pytorch_refuses(torch: Any, tmp: Path) -> None:
    with pytest.raises(TypeError, match=r"cross_entropy_loss\(\): argument 'target' \(position "
                                        r"2\) must be Tensor, not list"):
        torch.nn.functional.cross_entropy(torch.zeros(2, 3), [0, 2])
    loss = minigrad.nn.functional.cross_entropy(minigrad.zeros(2, 3), [0, 2])
    assert abs(loss.item() - np.log(3)) < 1e-6
    with pytest.raises(TypeError, match=r"cross_entropy_loss\(\): argument 'input' \(position "
                                        r"1\) must be Tensor, not list"):
        torch.nn.functional.cross_entropy([[0.0, 0.0, 0.0]], torch.tensor([0]))
    with pytest.raises(TypeError, match=r"cross_entropy_loss\(\): argument 'input' \(position "
                                        r"1\) must be Tensor, not list"):
        minigrad.nn.functional.cross_entropy([[0.0, 0.0, 0.0]], minigrad.tensor([0]))
