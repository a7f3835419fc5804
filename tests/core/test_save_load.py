"""minigrad.save / minigrad.load: PyTorch's file format both ways, and safe on any file."""

from __future__ import annotations

import io
import pickle
import struct
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn

DTYPES = ("float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool")


def mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))


def records(blob: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        return {name: z.read(name) for name in z.namelist()}


def archive(files: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return out.getvalue()


def torch_bytes(torch, obj) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def mg_bytes(obj) -> bytes:
    buffer = io.BytesIO()
    mg.save(obj, buffer)
    return buffer.getvalue()


def load_bytes(blob: bytes, **kwargs):
    return mg.load(io.BytesIO(blob), **kwargs)


# -- PyTorch's format, both ways ---------------------------------------------------------------
def test_state_dict_round_trip_minigrad_torch_minigrad(torch_mod, tmp_path):
    torch = torch_mod
    mg.manual_seed(0)
    model = mlp(mg)
    mg.save(model.state_dict(), tmp_path / "mg.pt")
    t_model = mlp(torch)
    t_model.load_state_dict(torch.load(tmp_path / "mg.pt", weights_only=True))
    mapped = torch.load(tmp_path / "mg.pt", weights_only=True, mmap=True)  # (records aligned)
    assert all(torch.equal(mapped[k], v) for k, v in t_model.state_dict().items())
    torch.save(t_model.state_dict(), tmp_path / "torch.pt")
    again = mlp(mg)
    assert again.load_state_dict(mg.load(tmp_path / "torch.pt")).missing_keys == []
    for name, value in model.state_dict().items():
        np.testing.assert_array_equal(again.state_dict()[name], value, err_msg=name)
        np.testing.assert_array_equal(t_model.state_dict()[name].numpy(), value)


def test_a_torch_linear_and_sequential_load_into_minigrad_modules(torch_mod, tmp_path):
    torch = torch_mod
    x = np.random.default_rng(0).normal(size=(2, 3)).astype(np.float32)
    for t_model, m_model in ((torch.nn.Linear(3, 2), nn.Linear(3, 2)), (mlp(torch), mlp(mg))):
        torch.save(t_model.state_dict(), tmp_path / "w.pt")
        m_model.load_state_dict(mg.load(tmp_path / "w.pt"))
        np.testing.assert_allclose(m_model(mg.tensor(x)).detach().numpy(),
                                   t_model(torch.tensor(x)).detach().numpy(), atol=1e-6)


def test_a_torch_checkpoint_dict_loads_with_equal_values_and_dtypes(torch_mod):
    torch = torch_mod
    sd = torch.nn.Linear(2, 2).state_dict()
    got = load_bytes(torch_bytes(torch, {"epoch": 3, "model": sd, "loss": 0.25, "name": "run",
                                         "steps": [1, 2], "shape": (2, 2), "none": None}))
    assert (got["epoch"], got["loss"], got["name"], got["steps"], got["shape"], got["none"]) \
        == (3, 0.25, "run", [1, 2], (2, 2), None)
    assert type(got["model"]) is OrderedDict and list(got["model"]) == ["weight", "bias"]
    for name, value in sd.items():
        assert got["model"][name].dtype == mg.float32
        np.testing.assert_array_equal(got["model"][name].numpy(), value.numpy())


@pytest.mark.parametrize("name", DTYPES)
def test_every_dtype_round_trips_and_matches_torch(torch_mod, name):
    torch = torch_mod
    values = np.array([[0, 1, 1], [1, 0, 1]]).astype(name)
    mine = mg.tensor(values)
    back = load_bytes(mg_bytes(mine))
    in_torch = torch.load(io.BytesIO(mg_bytes(mine)), weights_only=True)
    from_torch = load_bytes(torch_bytes(torch, torch.from_numpy(values)))
    for t in (back, from_torch):
        assert t.dtype == np.dtype(name)
        np.testing.assert_array_equal(t.numpy(), values)
    assert in_torch.dtype == getattr(torch, name)
    np.testing.assert_array_equal(in_torch.numpy(), values)


def test_scalars_empty_tensors_and_requires_grad_survive_both_ways(torch_mod):
    torch = torch_mod
    obj = {"scalar": mg.tensor(2.5), "empty": mg.zeros(0, 3),
           "w": mg.tensor([1.0, 2.0], requires_grad=True), "big": 2**70, "neg": -(2**40),
           "text": "héllo", "flags": (True, False, None), "nested": [{"a": [1, (2, 3.5)]}]}
    for got in (load_bytes(mg_bytes(obj)),
                load_bytes(torch_bytes(torch, torch.load(io.BytesIO(mg_bytes(obj)),
                                                         weights_only=True)))):
        assert got["scalar"].shape == () and got["scalar"].item() == 2.5
        assert got["empty"].shape == (0, 3)
        assert got["w"].requires_grad and got["w"].is_leaf
        assert {k: got[k] for k in ("big", "neg", "text", "flags", "nested")} == \
            {k: obj[k] for k in ("big", "neg", "text", "flags", "nested")}


def test_views_of_one_storage_load_with_their_offsets_and_strides(torch_mod):
    torch = torch_mod
    x = torch.arange(12.0).reshape(3, 4)
    views = {"x": x, "row": x[1], "t": x.t(), "cols": x[:, 1:3], "every_other": x[::2, ::2]}
    got = load_bytes(torch_bytes(torch, views))
    for name, view in views.items():
        assert got[name].shape == tuple(view.shape), name
        np.testing.assert_array_equal(got[name].numpy(), view.numpy(), err_msg=name)
    assert np.shares_memory(got["x"].numpy(), got["cols"].numpy())  # one storage, as in torch
    got["t"].add_(1)  # (writes through, as in torch)
    np.testing.assert_array_equal(got["x"].numpy(), x.numpy() + 1)


def test_an_expanded_tensor_loads_and_refuses_in_place_writes_as_torch(torch_mod):
    expanded = torch_mod.tensor([1.0, 2.0]).expand(3, 2)
    got = load_bytes(torch_bytes(torch_mod, expanded))
    np.testing.assert_array_equal(got.numpy(), expanded.numpy())
    for t in (got, expanded):
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            t.add_(1)


def test_a_saved_parameter_loads_as_a_leaf_that_requires_grad(torch_mod):
    torch = torch_mod
    got = load_bytes(torch_bytes(torch, torch.nn.Parameter(torch.ones(2))))
    assert isinstance(got, mg.Tensor) and got.requires_grad and got.is_leaf


def test_the_same_tensor_twice_is_one_object_again(torch_mod):
    t = mg.tensor([1.0, 2.0])
    got = load_bytes(mg_bytes([t, t]))
    assert got[0] is got[1]
    in_torch = torch_mod.load(io.BytesIO(mg_bytes([t, t])), weights_only=True)
    assert in_torch[0] is in_torch[1]


def test_the_archive_has_torchs_records_and_its_folder_name(tmp_path):
    mg.save({"w": mg.ones(2)}, tmp_path / "my.model.pt")
    names = set(records((tmp_path / "my.model.pt").read_bytes()))
    assert {"my.model/data.pkl", "my.model/data/0", "my.model/version",
            "my.model/byteorder"} <= names
    assert set(records(mg_bytes(1))) == {"archive/data.pkl", "archive/version",
                                          "archive/byteorder"}
    blob = mg_bytes([mg.ones(3), mg.ones(5, dtype=mg.float64)])
    for info in zipfile.ZipFile(io.BytesIO(blob)).infolist():  # each record's bytes aligned
        name_length, extra_length = struct.unpack("<HH", blob[info.header_offset + 26:][:4])
        assert (info.header_offset + 30 + name_length + extra_length) % 64 == 0, info.filename


def test_a_big_endian_file_is_read_in_its_byte_order(torch_mod):
    files = records(torch_bytes(torch_mod, torch_mod.tensor([1.0, -2.0, 3.5])))
    files["archive/byteorder"] = b"big"
    files["archive/data/0"] = np.frombuffer(files["archive/data/0"], "<f4").astype(">f4").tobytes()
    np.testing.assert_array_equal(load_bytes(archive(files)).numpy(), [1.0, -2.0, 3.5])


def test_map_location_cpu_dict_and_function_and_a_cuda_file(torch_mod):
    files = records(torch_bytes(torch_mod, torch_mod.ones(2)))
    files["archive/data.pkl"] = files["archive/data.pkl"].replace(
        b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
    blob = archive(files)
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        load_bytes(blob)
    for where in ("cpu", {"cuda:0": "cpu"}, lambda storage, loc: storage):
        np.testing.assert_array_equal(load_bytes(blob, map_location=where).numpy(), [1, 1])
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        load_bytes(mg_bytes(mg.ones(2)), map_location="cuda")


def test_a_path_and_a_file_object_both_work(tmp_path):
    path = tmp_path / "t.pt"
    with open(path, "wb") as f:
        mg.save([1, 2], f)
    with open(path, "rb") as f:
        assert mg.load(f) == [1, 2]
    assert mg.load(str(path)) == [1, 2]


# -- misuse ------------------------------------------------------------------------------------
def test_other_objects_save_and_load_only_when_asked(tmp_path):
    """(What weights_only cannot read is pickled as a whole object: objects.py and
    tests/core/test_save_whole_objects.py.)"""
    for other in ({"f": print}, np.array(["a"]), {(1, 2): 3}, {0.5: 1}, {2**64: 1}):
        mg.save(other, tmp_path / "other.pt")
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
            mg.load(tmp_path / "other.pt")
        again = mg.load(tmp_path / "other.pt", weights_only=False)
        assert repr(again) == repr(other)


def test_what_cannot_be_pickled_writes_nothing(tmp_path):
    with pytest.raises((AttributeError, pickle.PicklingError)):
        mg.save({"f": lambda: 1}, tmp_path / "bad.pt")
    assert not (tmp_path / "bad.pt").exists()


def test_a_pickle_module_is_refused_as_torch_refuses_it(torch_mod):
    blob = mg_bytes(1)
    with pytest.raises(RuntimeError, match="explicit pickle_module") as mine:
        load_bytes(blob, pickle_module=pickle)
    with pytest.raises(RuntimeError) as theirs:
        torch_mod.load(io.BytesIO(blob), pickle_module=pickle, weights_only=True)
    assert str(mine.value) == str(theirs.value)


def test_the_plain_python_types_torch_allows_load_as_in_torch(torch_mod):
    from collections import Counter

    obj = {"set": {1, 2}, "bytes": b"\x00\xffab", "bytearray": bytearray(b"xy"),
           "complex": 1 + 2j, "counter": Counter("abca"), "od": OrderedDict(a=1),
           "dtype": torch_mod.float64, "size": torch_mod.Size([2, 3])}
    got = load_bytes(torch_bytes(torch_mod, obj))
    assert {k: got[k] for k in ("set", "bytes", "bytearray", "complex", "counter", "od")} == \
        {k: obj[k] for k in ("set", "bytes", "bytearray", "complex", "counter", "od")}
    assert got["dtype"] == mg.float64 and got["size"] == (2, 3)


@pytest.mark.parametrize("dtype", ["bfloat16", "complex64", "uint16"])
def test_a_dtype_minigrad_does_not_have_is_named(torch_mod, dtype):
    blob = torch_bytes(torch_mod, {"w": torch_mod.ones(2, dtype=getattr(torch_mod, dtype))})
    with pytest.raises(RuntimeError, match=f"dtype {dtype}.*which minigrad does not have"):
        load_bytes(blob)
