"""What the expression fuzzer (test_expr_fuzz_torch.py) found, each shrunk to a plain case and
run side by side with PyTorch: in the library (the result, or the error's class and words) and
in the expression language (the result, or the class of the refusal's cause)."""

from __future__ import annotations

import warnings

import pytest

import minigrad
from minigrad.teach.expr import ExpressionError, evaluate
from side_by_side import agree, outcome

LIBRARY = {
    "sin of a number": lambda t: t.sin(1),
    "abs of a number": lambda t: t.abs(0),
    "sum of a number": lambda t: t.sum(1),
    "mm with a number": lambda t: t.mm(t.ones(2, 2), 1),
    "dot with a number": lambda t: t.dot(t.ones(2), 1),
    "maximum with a number": lambda t: t.maximum(t.ones(2), 1),
    "matmul with a number": lambda t: t.matmul(t.ones(2, 2), 2.5),
    "view_as a number": lambda t: t.ones(2).view_as(-1.5),
    "where with a bool condition": lambda t: t.where(True, t.ones(1), 0),
    "pow of two numbers": lambda t: t.pow(2, 0.5),
    "sub of two numbers is a 0-d tensor": lambda t: t.sub(-1, 2.5),
    "abs of bools": lambda t: t.abs(t.tensor([True, False])),
    "relu of bools": lambda t: t.relu(t.tensor([True, False])),
    "False ** bools": lambda t: False ** t.tensor([True]),
    "comparing shapes that do not broadcast": lambda t: t.ones(3, 3) != t.ones(2, 3),
    "bool % bool of shapes that do not broadcast": lambda t: (t.ones(3, 3) > 0) % (
        t.ones(2, 3) > 0),
    "bool ** bool of shapes that do not broadcast": lambda t: (t.ones(2, 3) > 0) ** (
        t.ones(3, 3) > 0),
    "a float remainder of 0 keeps the dividend's sign": lambda t: (
        t.tensor([-2.0, 2.0, -3.0]) % 1.0, 1.0 / (t.tensor([-2.0, 2.0]) % 1.0)),
    "ints to negative powers": lambda t: (t.pow(2, t.tensor([-1, -2, 0, 3])),
                                          t.tensor([2, -1, 1, 0]) ** t.tensor([-1, -3, -2, -1])),
    "s[...] of a 0-d tensor": lambda t: t.tensor(2.0)[...],
    "transpose of a 0-d tensor": lambda t: t.tensor(2.0).transpose(0, -1),
    "narrow of a 0-d tensor": lambda t: t.tensor(2.0).narrow(0, 0, 1),
    "mv of a 0-d tensor": lambda t: t.mv(t.tensor(1.0), t.ones(3)),
    "mv of two vectors": lambda t: t.mv(t.ones(3), t.ones(3)),
    "expand_as a 0-d tensor": lambda t: t.ones(2, 3).expand_as(t.tensor(1.0)),
}


# (PyTorch's parser lists every signature of where; minigrad says which argument is wrong)
CLASS_ONLY = {"where with a bool condition"}


@pytest.mark.parametrize("name", sorted(LIBRARY))
def test_the_library_as_pytorch(name, torch_mod):
    words = name not in CLASS_ONLY
    ours = outcome(lambda: LIBRARY[name](minigrad), words)
    assert agree(ours, outcome(lambda: LIBRARY[name](torch_mod), words))


def _refusal_or_result(run):
    try:
        value = run()
    except ExpressionError as exc:  # (its cause: what Python itself raised there)
        return "error", type(exc.__cause__).__name__
    except Exception as exc:  # noqa: BLE001 - compared with PyTorch's
        return "error", type(exc).__name__
    return "ok", value.tolist()


@pytest.mark.parametrize("source", [
    "(2**1).T",  # a number has no .T: AttributeError, as in Python
    "(2**1)[0]",  # nor a subscript: TypeError
    "(-1 ** 2**1).subtract(s.reshape(2, -1))",  # the method's receiver first, as Python
    "(s).narrow(2, 0, 1)",
])
def test_the_expression_language_refuses_as_python_on_pytorch(source, torch_mod):
    ours = _refusal_or_result(lambda: evaluate(source, {"s": minigrad.tensor(1.5)}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # (Python's note on `(2**1)[0]`)
        theirs = _refusal_or_result(
            lambda: eval(source, {}, {"s": torch_mod.tensor(1.5)}))  # noqa: S307
    assert ours == theirs
