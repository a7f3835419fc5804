"""tensor() reads lists and tuples of Python data as PyTorch does (minigrad/surface/python_data.py):
the same shape and dtype, or the same error (class and words), with and without dtype=. Found
by the nn state machine's collation (a list of one-element tensors was a (2, 1) tensor, float64
arrays in a list float32, None among floats NaN when a dtype was given)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from side_by_side import agree, outcome

OBJECT = object()

DATA = {  # name -> data, a function of the library
    "a str": lambda t: "a", "bytes": lambda t: b"ab", "[str]": lambda t: ["a"],
    "[1, str]": lambda t: [1, "a"], "[[1], [str]]": lambda t: [[1], ["a"]],
    "[[str], [1]]": lambda t: [["a"], [1]], "(str,)": lambda t: ("a",),
    "[1.5, bytes]": lambda t: [1.5, b"a"], "[None, str]": lambda t: [None, "a"],
    "[str, None]": lambda t: ["a", None], "[1, None]": lambda t: [1, None],
    "None": lambda t: None, "[[1, 2], [3, None]]": lambda t: [[1, 2], [3, None]],
    "an object": lambda t: OBJECT, "[1, object]": lambda t: [1, OBJECT],
    "a dict": lambda t: {1: 2}, "a set in a list": lambda t: [{1}],
    "ragged rows": lambda t: [[1, 2], [3]], "[[1], []]": lambda t: [[1], []],
    "[[1], 2]": lambda t: [[1], 2], "[1, [2]]": lambda t: [1, [2]],
    "[1.5, [2]]": lambda t: [1.5, [2]], "[True, [False]]": lambda t: [True, [False]],
    "[1, (2,)]": lambda t: [1, (2,)], "[[1], (2,)]": lambda t: [[1], (2,)],
    "[[], []]": lambda t: [[], []], "[[[]]]": lambda t: [[[]]], "[]": lambda t: [],
    "two 2-element tensors": lambda t: [t.ones(2), t.ones(2)],
    "two 1-element tensors": lambda t: [t.ones(1), t.ones(1)],
    "two 2-element int tensors": lambda t: [t.ones(2, dtype=t.int64)] * 2,
    "a float and a 2-element tensor": lambda t: [1.5, t.ones(2)],
    "an int and a 2-element tensor": lambda t: [1, t.ones(2)],
    "0-d tensors of two dtypes": lambda t: [t.tensor(1.0), t.tensor(2)],
    "rows of a 2-element tensor": lambda t: [[t.ones(2)], [t.ones(2)]],
    "two float64 arrays": lambda t: [np.ones(2), np.ones(2)],
    "a float and an array": lambda t: [1.5, np.ones(2)],
    "an int and an int array": lambda t: [1, np.ones(2, int)],
    "an array and an int": lambda t: [np.ones(2), 1],
    "two 0-d arrays": lambda t: [np.array(1.0), np.array(2)],
    "a list and an array": lambda t: [[1, 2], np.ones(2)],
    "an array and a longer list": lambda t: [np.ones(2), [1, 2, 3]],
    "float16 and int32 arrays": lambda t: (np.ones(2, np.float16), np.ones(2, np.int32)),
    "a float16 scalar and an int": lambda t: [np.float16(1), 1],
    "uint8 and int8 scalars": lambda t: [np.uint8(3), np.int8(-1)],
    "ranges": lambda t: [range(2), [1, 2]], "True and 2": lambda t: [True, 2],
    "complex and float": lambda t: [1j, 1.5], "an int past int64": lambda t: [2**70],
    "a float and an int past int64": lambda t: [1.5, 2**70], "-2**63": lambda t: [-2**63],
}
DTYPES = [None, "float32", "int64", "bool", "int8", "uint8", "float16"]
GIVEN = {  # more data, for a given dtype (NaN and inf: integer ones)
    "300": lambda t: [300], "-1": lambda t: [-1], "-300": lambda t: [-300], "1.5": lambda t: [1.5],
    "NaN": lambda t: [float("nan")], "inf": lambda t: [float("inf")],
    "numpy scalars": lambda t: [np.float64(1.5), np.float32(1.5), np.bool_(True), np.int8(3)],
    "numpy complex": lambda t: [np.complex128(1), np.ones(1, np.complex64)[0]],
}


CASES = [(name, d) for name in sorted(DATA) for d in DTYPES] + [
    (name, d) for name in sorted(GIVEN) for d in DTYPES[1:]
    if not (name in ("NaN", "inf") and d in ("float32", "float16"))]


@pytest.mark.parametrize(("name", "dtype"), CASES)
def test_tensor_of_python_data_as_pytorch(name, dtype, torch_mod):
    data = DATA.get(name) or GIVEN[name]

    def run(t):
        return t.tensor(data(t), dtype=None if dtype is None else getattr(t, dtype))
    ours, theirs = outcome(lambda: run(minigrad)), outcome(lambda: run(torch_mod))
    assert agree(ours, theirs), f"minigrad: {ours}\nPyTorch:  {theirs}"


def test_as_tensor_and_the_default_dtype_read_alike(torch_mod):
    for t in (minigrad, torch_mod):
        t.set_default_dtype(t.float64)
    try:
        cases = [lambda t: t.tensor([1.5, 1j]), lambda t: t.tensor([1.5, 2]),
                 lambda t: t.as_tensor([t.tensor(1), 2.5])]
        outcomes = [(outcome(lambda c=c: c(minigrad)), outcome(lambda c=c: c(torch_mod)))
                    for c in cases]
    finally:
        for t in (minigrad, torch_mod):
            t.set_default_dtype(t.float32)
    assert all(ours == theirs for ours, theirs in outcomes), outcomes
