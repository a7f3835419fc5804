"""gradcheck and gradgradcheck: they pass right backwards and catch wrong ones, saying where.

Each planted bug below is one a student really writes: a wrong sign, a bias gradient that
is not summed over the rows the bias was broadcast to, a backward that ignores `dim`, and a
backward that is right but cannot be differentiated again. Every report must name the input
and the element, and give the numerical and analytical value there.
"""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

import minigrad
from minigrad import Function
from minigrad.testing import GradcheckError, gradcheck, gradgradcheck


def leaf(values, name=None):
    return minigrad.tensor(values, dtype=minigrad.float64, requires_grad=True, name=name)


# -- planted bugs -------------------------------------------------------------------------------
class WrongSignCos(Function):
    """cos x, with the classic slip: d(cos x)/dx written as +sin x"""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.cos(x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.sin()  # BUG: the derivative of cos is -sin


class AddBias(Function):
    """x + b for x of shape (N, F) and a bias b of shape (F,) added to every row"""

    @staticmethod
    def forward(ctx, x, b):
        return x.array + b.array

    @staticmethod
    def backward(ctx, grad):
        return grad, grad.sum(0)  # b is used by every row: its gradient sums over the rows


class AddBiasOneRow(AddBias):
    @staticmethod
    def backward(ctx, grad):
        return grad, grad[0]  # BUG: the broadcast reduction is missing (row 0 only)


class AddBiasEngineSums(AddBias):
    @staticmethod
    def backward(ctx, grad):
        return grad, grad  # also right: the engine sums a (N, F) gradient down to b's (F,)


class SoftmaxLastDim(Function):
    """softmax along `dim`, whose backward forgets `dim` and always uses the last one"""

    @staticmethod
    def forward(ctx, x, dim):
        e = np.exp(x.array - x.array.max(axis=dim, keepdims=True))
        y = e / e.sum(axis=dim, keepdims=True)
        ctx.y = minigrad.tensor(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        y = ctx.y
        return y * (grad - (grad * y).sum(dim=-1, keepdim=True)), None  # BUG: dim=ctx.dim


class CubeOutsideGraph(Function):
    """x**3 with a backward that is right, but computed from `.array`: not differentiable"""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.array ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * minigrad.tensor(3 * x.array ** 2)  # BUG (2nd order): leaves the graph


class CubeAllNumpy(CubeOutsideGraph):
    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return minigrad.tensor(3 * x.array ** 2 * grad.array)  # BUG (2nd order): no graph at all


class CubeIgnoresGrad(CubeOutsideGraph):
    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2  # BUG: forgets to multiply by the incoming gradient


def test_catches_a_wrong_sign() -> None:
    x = leaf([0.5, -1.0, 2.0], name="x")
    with pytest.raises(GradcheckError) as info:
        gradcheck(WrongSignCos.apply, (x,))
    err = info.value
    assert (err.input_index, err.input_element, err.output_element) == (0, (2,), (2,))
    assert err.numerical_value == pytest.approx(-np.sin(2.0), rel=1e-6)
    assert err.analytical_value == pytest.approx(np.sin(2.0), rel=1e-12)
    text = str(err)
    assert text.startswith("Jacobian mismatch for output 0 with respect to input 0,\n"
                           "numerical:tensor([[")
    assert "Worst element: input 0 (x) at index [2], output 0 at index [2]" in text
    assert f"numerical  = {err.numerical_value!r}" in text
    assert "analytical = 0.9092974268256817" in text
    assert "3 of 9 elements of this Jacobian differ" in text


def test_catches_a_missing_broadcast_reduction() -> None:
    x = leaf(np.arange(6.0).reshape(3, 2), name="x")
    b = leaf([0.5, -0.5], name="b")
    assert gradcheck(AddBias.apply, (x, b))
    assert gradcheck(AddBiasEngineSums.apply, (x, b))
    with pytest.raises(GradcheckError) as info:
        gradcheck(AddBiasOneRow.apply, (x, b))
    err = info.value
    assert err.input_index == 1  # x's gradient is right; b's is not
    assert (err.input_element, err.output_element) == ((0,), (1, 0))
    assert (err.numerical_value, err.analytical_value) == (pytest.approx(1.0), 0.0)
    assert str(err).startswith("Jacobian mismatch for output 0 with respect to input 1,")
    assert "input 1 (b) at index [0], output 0 at index [1, 0]" in str(err)
    assert "4 of 12 elements of this Jacobian differ" in str(err)  # rows 1 and 2, both b's


def test_catches_a_backward_that_ignores_dim() -> None:
    x = leaf([[0.1, 0.9, -0.4, 0.3], [1.2, -0.7, 0.0, 0.5], [-1.1, 0.4, 0.8, -0.2]], name="x")
    assert gradcheck(SoftmaxLastDim.apply, (x, -1))  # right when dim happens to be the last
    assert gradcheck(SoftmaxLastDim.apply, (x, 1))
    with pytest.raises(GradcheckError) as info:
        gradcheck(SoftmaxLastDim.apply, (x, 0))
    err = info.value
    assert err.input_index == 0 and len(err.input_element) == 2
    assert f"input 0 (x) at index [{err.input_element[0]}, {err.input_element[1]}]" in str(err)
    assert err.numerical_value != pytest.approx(err.analytical_value, abs=1e-3)


def test_gradgradcheck_catches_a_backward_that_leaves_the_graph() -> None:
    x = leaf([1.0, -2.0, 0.5], name="x")
    assert gradcheck(CubeOutsideGraph.apply, (x,))  # first order is fine...
    with pytest.raises(GradcheckError) as info:
        gradgradcheck(CubeOutsideGraph.apply, (x,))  # ...second order is not
    err = info.value
    text = str(err)
    assert text.startswith("Jacobian mismatch for output 0 with respect to input 0,")
    assert "analytical:tensor([[0., 0., 0.]," in text  # as in PyTorch's report
    assert re.search(r"Worst element: input 0 \(x\) at index \[\d\], output 0 \(the gradient "
                     r"of x\) at index \[\d\]", text)
    assert err.analytical_value == 0.0 and err.numerical_value != 0.0
    assert "gradgradcheck checks the function (inputs, grad_outputs)" in text


def test_gradgradcheck_catches_a_backward_without_any_graph() -> None:
    x = leaf([1.0, -2.0], name="x")
    assert gradcheck(CubeAllNumpy.apply, (x,))
    with pytest.raises(GradcheckError, match="Numerical gradient for function expected to be "
                                             "zero") as info:
        gradgradcheck(CubeAllNumpy.apply, (x,))
    assert "changes with input 0 (x):\nd output 0[1] / d x[1] = " in str(info.value)
    assert "computed outside the graph" in str(info.value)


def test_catches_a_backward_that_ignores_grad_output() -> None:
    x = leaf(2.0, name="x")  # one element: the Jacobian check alone cannot see it
    with pytest.raises(GradcheckError, match="^backward not multiplied by grad_output\n") as info:
        gradcheck(CubeIgnoresGrad.apply, (x,))
    assert "the gradient of input 0 (x) (a scalar) is 12.0 instead of 0" in str(info.value)


def test_report_matches_pytorchs(torch_mod) -> None:
    """The first lines are PyTorch's, word for word (dtype aside)."""
    torch = torch_mod

    class TorchWrongSignCos(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.cos()

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * x.sin()

    values = [0.5, -1.0, 2.0]
    with pytest.raises(RuntimeError) as theirs:
        torch.autograd.gradcheck(TorchWrongSignCos.apply,
                                 (torch.tensor(values, dtype=torch.float64, requires_grad=True),))
    with pytest.raises(GradcheckError) as ours:
        gradcheck(WrongSignCos.apply, (leaf(values),))
    assert type(theirs.value).__name__ == "GradcheckError"
    expected = str(theirs.value).replace("torch.float64", "minigrad.float64").rstrip("\n")
    assert str(ours.value).startswith(expected + "\n\nWorst element:")


# -- passing checks ---------------------------------------------------------------------------
def test_passes_right_gradients_of_every_shape_of_call() -> None:
    x, y = leaf([[1.0, 2.0], [3.0, -1.0]]), leaf([0.5, -1.5])
    assert gradcheck(lambda x, y: (x * y, (x @ y).exp()), (x, y))  # two outputs, broadcast
    assert gradcheck(lambda x, n: x ** n, (x, 3))  # a number among the inputs
    assert gradcheck(lambda x, y: x.tanh(), (x, y))  # an input that is not used
    assert gradcheck(lambda x: x, x)  # an output that is the input itself
    assert gradcheck(lambda x: x.max(dim=1), x)  # (values, indices): indices are skipped
    assert gradgradcheck(lambda x, y: (x * y).sigmoid().sum(), (x, y))
    assert gradgradcheck(lambda x: x.exp() * x, (x,), grad_outputs=(leaf([[1.0, 2.0],
                                                                           [0.0, -1.0]]),))


def test_leaves_the_inputs_as_they_were() -> None:
    x = leaf([0.1, 0.2, 0.3])
    before = x.array.copy()
    gradcheck(lambda x: x * x, x)
    assert np.array_equal(x.array, before)


def test_returns_false_instead_of_raising_when_asked() -> None:
    x = leaf([0.5, -1.0])
    assert gradcheck(WrongSignCos.apply, (x,), raise_exception=False) is False
    assert gradgradcheck(CubeOutsideGraph.apply, (x,), raise_exception=False) is False
    assert issubclass(GradcheckError, RuntimeError)  # as PyTorch's


def test_tolerances_are_pytorchs_allclose() -> None:
    class Off(Function):
        @staticmethod
        def forward(ctx, x):
            return x.array * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2.0015  # 0.075 % off: inside rtol=1e-3, outside rtol=1e-4

    x = leaf([1.0, 2.0])
    assert gradcheck(Off.apply, x)
    assert not gradcheck(Off.apply, x, rtol=1e-4, raise_exception=False)
    assert gradcheck(Off.apply, x, atol=0.01, rtol=0)


def test_warns_about_float32_like_pytorch() -> None:
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    message = ("Input #0 requires gradient and is not a double precision floating point or "
               "complex. This check will likely fail if all the inputs are not of double "
               "precision floating point or complex. ")
    with pytest.warns(UserWarning, match=re.escape(message)):
        gradcheck(lambda x: x.exp(), x, raise_exception=False)


def test_misuse_gets_pytorchs_errors() -> None:
    with pytest.raises(ValueError, match="gradcheck expects at least one input tensor to "
                                         "require gradient, but none of them have "
                                         "requires_grad=True."):
        gradcheck(lambda x: x * 2, minigrad.tensor([1.0], dtype=minigrad.float64))
    expanded = leaf([1.0]).expand(3)
    with pytest.raises(RuntimeError, match="The 0th input has a dimension with stride 0"):
        gradcheck(lambda x: x * 2, expanded)


def test_big_jacobians_are_described_not_printed() -> None:
    x = leaf(np.linspace(0.1, 1.0, 11))
    with pytest.raises(GradcheckError) as info:
        gradcheck(lambda x: WrongSignCos.apply(x.unsqueeze(0) * x.unsqueeze(1)), x)
    assert "numerical:<a 11 x 121 Jacobian, too big to print: see GradcheckError.numerical>" \
        in str(info.value)
    assert info.value.numerical.shape == (11, 121)
    assert "Worst element: input 0 at index [" in str(info.value)


def test_minigrad_testing_imports_without_hypothesis() -> None:
    code = ("import sys; sys.modules['hypothesis'] = None\n"
            "import minigrad, minigrad.testing as t\n"
            "x = minigrad.tensor([1.0, 2.0], dtype=minigrad.float64, requires_grad=True)\n"
            "assert t.gradcheck(lambda x: x.exp(), x) and len(t.op_table.OPS) > 60\n"
            "assert 'minigrad.testing.strategies' not in sys.modules\n"
            "try:\n    t.strategies\nexcept ImportError:\n    print('lazy')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "lazy"


def test_a_function_that_raises_leaves_the_input_as_it_was():
    x = minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64, requires_grad=True)
    calls = []

    def fn(t):
        calls.append(t.detach().numpy().copy())
        if len(calls) == 2:  # the first perturbed call (after the analytic one) raises
            raise ValueError("boom")
        return t * 2

    with pytest.raises(ValueError, match="boom"):
        gradcheck(fn, (x,))
    assert x.detach().numpy().tolist() == [1.0, 2.0, 3.0]
