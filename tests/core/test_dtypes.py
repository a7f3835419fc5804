"""dtypes as PyTorch shows them, and numpy's dtypes wherever numpy takes one."""

import pickle

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")

NAMES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool",
         "float", "double", "half", "long", "int", "short", "cfloat"]


@pytest.mark.parametrize("name", NAMES)
def test_dtype_prints_and_answers_as_torchs(name):
    ours, theirs = getattr(minigrad, name), getattr(torch, name)
    assert repr(ours) == repr(theirs).replace("torch.", "minigrad.") == str(ours)
    assert ours.is_floating_point == theirs.is_floating_point
    assert ours.itemsize == theirs.itemsize and ours.is_signed == theirs.is_signed
    assert ours.is_complex == theirs.is_complex


def test_dtypes_are_numpys_wherever_numpy_takes_a_dtype():
    d = minigrad.float64
    assert np.zeros(3, dtype=d).dtype == np.float64 and np.ones(2).astype(d).dtype == np.float64
    assert d == np.float64 and d == np.dtype("float64") and np.dtype("float64") == d
    assert d != minigrad.float32 and d != "float64"
    assert {np.dtype("float64"): 1}[d] == 1 and hash(d) == hash(np.dtype(np.float64))
    assert pickle.loads(pickle.dumps(d)) is d


def test_tensor_dtype_is_the_minigrad_dtype():
    x = minigrad.tensor([1.0, 2.0])
    assert x.dtype is minigrad.float32 and repr(x.dtype) == "minigrad.float32"
    assert minigrad.tensor([1, 2]).dtype is minigrad.int64
    assert repr(minigrad.ones(2, dtype=minigrad.float64)) == (
        "tensor([1., 1.], dtype=minigrad.float64)")


def test_finfo_and_iinfo_match_torch():
    for d in ("float16", "float32", "float64"):
        assert repr(minigrad.finfo(getattr(minigrad, d))) == repr(torch.finfo(getattr(torch, d)))
    for d in ("uint8", "int8", "int32", "int64"):
        assert repr(minigrad.iinfo(getattr(minigrad, d))) == repr(torch.iinfo(getattr(torch, d)))
    assert minigrad.finfo().eps == torch.finfo().eps
    with pytest.raises(TypeError, match=r"torch.finfo\(\) requires a floating point"):
        minigrad.finfo(minigrad.int64)
    with pytest.raises(TypeError, match="torch.bool is not supported by torch.iinfo"):
        minigrad.iinfo(minigrad.bool)


def test_default_dtype_float64_makes_python_floats_float64():
    assert minigrad.get_default_dtype() is minigrad.float32
    minigrad.set_default_dtype(minigrad.float64)
    try:
        assert minigrad.tensor([1.5]).dtype == minigrad.float64
        assert minigrad.zeros(2).dtype == minigrad.float64
        assert minigrad.arange(0.0, 1.0).dtype == minigrad.float64
        assert (minigrad.tensor([1, 2]) + 1.5).dtype == minigrad.float64
        assert (minigrad.ones(2, dtype=minigrad.float32) + 1.5).dtype == minigrad.float32
    finally:
        minigrad.set_default_dtype(minigrad.float32)
    with pytest.raises(TypeError, match="only floating-point types are supported as the default"):
        minigrad.set_default_dtype(minigrad.int64)
    assert minigrad.get_default_dtype() is minigrad.float32


def test_size_is_torchs():
    s = minigrad.Size([2, 3])
    assert repr(s) == "minigrad.Size([2, 3])" and s.numel() == 6
    assert type(s[1:]) is minigrad.Size and s[1:] == (3,) and s[0] == 2
    assert type(s + minigrad.Size([4])) is minigrad.Size and s + (4,) == (2, 3, 4)
    assert type((1,) + s) is minigrad.Size and repr(minigrad.Size()) == "minigrad.Size([])"
    assert minigrad.ones(2, 3).shape == s == (2, 3)
    with pytest.raises(TypeError, match=r"takes an iterable of 'int' \(item 0 is 'float'\)"):
        minigrad.Size([2.5])


def test_type_strings_and_conversions():
    for name in ("float32", "float64", "int64", "int32", "bool", "uint8", "int8", "int16"):
        t = torch.ones(1, dtype=getattr(torch, name)).type()
        assert minigrad.ones(1, dtype=getattr(minigrad, name)).type() == t.replace(
            "torch.", "minigrad.")
    x = minigrad.ones(2)
    assert x.type(minigrad.float64).dtype == minigrad.float64
    assert x.type("torch.LongTensor").dtype == minigrad.int64
    with pytest.raises(ValueError, match="invalid type: 'foo'"):
        x.type("foo")
    assert x.half().dtype == minigrad.float16 and x.byte().dtype == minigrad.uint8


def test_is_tensor_is_floating_point_numel():
    x = minigrad.ones(2, 3)
    assert minigrad.is_tensor(x) and not minigrad.is_tensor([1])
    assert minigrad.is_floating_point(x) and not minigrad.is_floating_point(x.long())
    assert minigrad.numel(x) == 6
    with pytest.raises(TypeError) as theirs:
        torch.numel([1])
    with pytest.raises(TypeError) as ours:
        minigrad.numel([1])
    assert str(ours.value) == str(theirs.value)
