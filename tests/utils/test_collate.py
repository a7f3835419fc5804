"""default_collate and default_convert against PyTorch's, on the same samples: values, dtypes
and structure (which container, which namedtuple) must be the same."""

from __future__ import annotations

from collections import OrderedDict, namedtuple

import numpy as np
import pytest

import minigrad as mg
from minigrad.utils import data

Point = namedtuple("Point", ["x", "y"])


def plain(value):
    """A tensor of either library as (dtype, shape, values); containers kept by type name."""
    if hasattr(value, "numpy") and type(value).__name__ == "Tensor":
        array = value.detach().numpy() if hasattr(value, "detach") else value.numpy()
        return ("tensor", str(array.dtype), array.shape, array.tolist())
    if isinstance(value, dict):
        return (type(value).__name__, [(k, plain(v)) for k, v in value.items()])
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return (type(value).__name__, [plain(v) for v in value])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [plain(v) for v in value])
    return (type(value).__name__, value)


def samples(lib):
    """Build the same batches in minigrad or torch (lib), from numpy data."""
    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=(2, 3)).astype(np.float32) for _ in range(3)]
    ints = [rng.integers(0, 9, size=4) for _ in range(3)]
    return {
        "tensors": [lib.tensor(a) for a in arrays],
        "int tensors": [lib.tensor(i) for i in ints],
        "numpy arrays": arrays,
        "numpy int arrays": ints,
        "python floats": [0.5, 1.5, -2.0],
        "python ints": [1, 2, 3],
        "bools": [True, False, True],
        "numpy scalars": [np.float32(1.5), np.float32(2.0)],
        "numpy float64 scalars": [np.float64(1.5), np.float64(2.0)],
        "numpy int scalars": [np.int32(1), np.int32(7)],
        "strings": ["a", "bb", "c"],
        "bytes": [b"a", b"b"],
        "tuples": [(lib.tensor(a), 1) for a in arrays],
        "lists": [[1.0, "x"], [2.0, "y"]],
        "dicts": [{"image": lib.tensor(a), "label": k, "name": f"n{k}"}
                  for k, a in enumerate(arrays)],
        "ordered dicts": [OrderedDict(b=1, a=2.5), OrderedDict(b=3, a=4.5)],
        "namedtuples": [Point(1, 2.0), Point(3, 4.0)],
        "nested": [{"pair": (lib.tensor(a), [k, k + 1]), "meta": {"id": k, "p": Point(k, 0.5)}}
                   for k, a in enumerate(arrays)],
    }


@pytest.mark.parametrize("case", list(samples(mg)))
def test_default_collate_matches_pytorch(torch_mod, case):
    from torch.utils.data import default_collate as torch_collate

    mine = data.default_collate(samples(mg)[case])
    theirs = torch_collate(samples(torch_mod)[case])
    assert plain(mine) == plain(theirs)


@pytest.mark.parametrize("case", ["numpy arrays", "numpy scalars", "dicts", "tuples", "lists",
                                  "namedtuples", "nested", "strings", "python ints"])
def test_default_convert_matches_pytorch(torch_mod, case):
    from torch.utils.data import default_convert as torch_convert

    for mine, theirs in zip(samples(mg)[case], samples(torch_mod)[case]):
        assert plain(data.default_convert(mine)) == plain(torch_convert(theirs))


def test_collate_of_float_and_int_numbers_is_float64_and_int64():
    assert data.default_collate([1.0, 2.0]).dtype == mg.float64
    assert data.default_collate([1, 2]).dtype == mg.int64


@pytest.mark.parametrize("batch", [
    [object(), object()],
    [np.array(["a"]), np.array(["b"])],
    [[1, 2], [3]],
    [None, None],
])
def test_what_cannot_be_collated_fails_as_in_pytorch(torch_mod, batch):
    from torch.utils.data import default_collate as torch_collate

    with pytest.raises(Exception) as theirs:
        torch_collate(batch)
    with pytest.raises(type(theirs.value)) as mine:
        data.default_collate(batch)
    assert str(mine.value) == str(theirs.value)


def test_tensors_of_different_shapes_do_not_stack():
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        data.default_collate([mg.ones(3), mg.ones(2)])


def test_a_custom_collate_fn_map_is_used_by_collate():
    from minigrad.utils.data.collate import collate, default_collate_fn_map

    table = {**default_collate_fn_map, str: lambda batch, collate_fn_map: "".join(batch)}
    assert collate([{"a": "x", "b": 1}, {"a": "y", "b": 2}], collate_fn_map=table)["a"] == "xy"
