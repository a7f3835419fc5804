"""minigrad.save / minigrad.load: PyTorch's file format both ways, and safe on any file."""

from __future__ import annotations

import io
import os
import pickle
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
    with pytest.raises(RuntimeError, match="no 'cuda' device"):
        load_bytes(mg_bytes(mg.ones(2)), map_location="cuda")


def test_a_path_and_a_file_object_both_work(tmp_path):
    path = tmp_path / "t.pt"
    with open(path, "wb") as f:
        mg.save([1, 2], f)
    with open(path, "rb") as f:
        assert mg.load(f) == [1, 2]
    assert mg.load(str(path)) == [1, 2]


# -- misuse ------------------------------------------------------------------------------------
def test_save_refuses_what_weights_only_cannot_load_and_writes_nothing(tmp_path):
    for bad in (nn.Linear(2, 2), {"f": print}, {1, 2}, np.array(["a"])):
        with pytest.raises(TypeError, match="minigrad.save"):
            mg.save(bad, tmp_path / "bad.pt")
        assert not (tmp_path / "bad.pt").exists()


def test_weights_only_false_and_a_pickle_module_are_refused(torch_mod):
    blob = mg_bytes(1)
    with pytest.raises(ValueError, match="minigrad never unpickles code"):
        load_bytes(blob, weights_only=False)
    with pytest.raises(RuntimeError, match="explicit pickle_module") as mine:
        load_bytes(blob, pickle_module=pickle)
    with pytest.raises(RuntimeError) as theirs:
        torch_mod.load(io.BytesIO(blob), pickle_module=pickle, weights_only=True)
    assert str(mine.value) == str(theirs.value)


# -- untrusted files: no code runs, nothing unbounded -----------------------------------------
class Payload:
    def __init__(self, marker) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def with_pickle(data: bytes) -> bytes:
    """A valid minigrad archive whose data.pkl is `data`."""
    files = records(mg_bytes(0))
    files["archive/data.pkl"] = data
    return archive(files)


def test_a_pickle_that_would_run_a_command_is_refused_and_runs_nothing(torch_mod, tmp_path):
    marker = tmp_path / "pwned"
    bare = pickle.dumps(Payload(marker), protocol=2)
    pickle.loads(bare)  # the control: Python's own unpickler runs the command
    assert marker.exists()
    marker.unlink()
    with pytest.raises(RuntimeError, match="not a checkpoint"):
        load_bytes(bare)
    zipped = with_pickle(bare)
    with pytest.raises(pickle.UnpicklingError, match=r"Weights only load failed") as e:
        load_bytes(zipped)
    assert f"Unsupported global: GLOBAL {os.system.__module__}.system" in str(e.value)
    assert "never runs code" in str(e.value)
    with pytest.raises(pickle.UnpicklingError):
        torch_mod.load(io.BytesIO(zipped), weights_only=True)  # PyTorch refuses it too
    assert not marker.exists()


@pytest.mark.parametrize("data, words", [
    (b"\x80\x02cos\nsystem\nX\x02\x00\x00\x00ls\x85R.", "GLOBAL os.system"),
    (b"\x80\x02c__builtin__\neval\nX\x01\x00\x00\x001\x85R.", "GLOBAL builtins.eval"),
    (b"\x80\x02cbuiltins\ngetattr\n.", "GLOBAL builtins.getattr"),
    (b"\x80\x02(X\x02\x00\x00\x00lsios\nsystem\n.", "Unsupported operand"),  # (INST)
    (b"\x80\x04\x8c\x02os\x8c\x06system\x93.", "Unsupported operand"),  # (STACK_GLOBAL)
    (b"\x80\x02N)R.", "unrecognized function"),
    (b"\x80\x02]}b.", "Can only build"),
    (b"\x80\x02X\x01\x00\x00\x00xQ.", "Only persistent_load of storage"),
])
def test_other_ways_to_name_code_are_refused(data, words):
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed") as e:
        load_bytes(with_pickle(data))
    assert words in str(e.value)


@pytest.mark.parametrize("data, words", [
    (b"", "truncated"), (b"\x80\x02X\xff\x00\x00\x00ab.", "truncated"),
    (b"\x80\x02.", "malformed"), (b"\x80\x02(N.", "malformed"), (b"\x80\x02h\x07.", "malformed"),
    (b"\x80\x02]N}s.", "Can only SETITEMS"), (b"\x80\x02N\x86.", "malformed"),
])
def test_malformed_pickles_are_refused_clearly(data, words):
    with pytest.raises(pickle.UnpicklingError, match=words):
        load_bytes(with_pickle(data))


def test_a_huge_memo_index_costs_nothing():
    blob = with_pickle(b"\x80\x02Nr\xff\xff\xff\xffj\xff\xff\xff\xff\x86.")
    assert load_bytes(blob) == (None, None)


def long(n: int) -> bytes:
    data = n.to_bytes((n.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(data)]) + data


def tensor_file(numel: int, size: tuple, stride: tuple, offset: int = 0, nbytes: int = 12
                ) -> bytes:
    """A float32 tensor's archive, its storage id and view written by hand."""
    text = lambda s: b"X" + len(s).to_bytes(4, "little") + s.encode()
    pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n((" + text("storage")
           + b"ctorch\nFloatStorage\n" + text("0") + text("cpu") + long(numel) + b"tQ"
           + long(offset) + b"(" + b"".join(map(long, size)) + b"t("
           + b"".join(map(long, stride)) + b"t\x89ccollections\nOrderedDict\n)RtR.")
    return archive({"archive/data.pkl": pkl, "archive/data/0": bytes(nbytes),
                    "archive/byteorder": b"little", "archive/version": b"3\n"})


def test_a_hand_made_tensor_file_loads_when_it_is_consistent():
    assert load_bytes(tensor_file(3, (3,), (1,))).shape == (3,)
    assert load_bytes(tensor_file(3, (2, 2), (0, 1), offset=1)).tolist() == [[0, 0], [0, 0]]


def test_a_storage_claiming_more_than_its_record_is_refused_before_allocating():
    with pytest.raises(RuntimeError, match="claims 1000000000000 elements of float32"):
        load_bytes(tensor_file(10**12, (10**12,), (1,)))
    with pytest.raises(RuntimeError, match="claims 4 elements"):
        load_bytes(tensor_file(4, (4,), (1,)))
    files = records(tensor_file(3, (3,), (1,)))
    del files["archive/data/0"]
    with pytest.raises(RuntimeError, match="holds no bytes"):
        load_bytes(archive(files))


def test_a_view_outside_its_storage_is_refused_as_pytorch_refuses_it(torch_mod):
    blob = tensor_file(3, (2, 2), (2, 1))
    with pytest.raises(RuntimeError, match="need 4 elements, the storage holds 3") as mine:
        load_bytes(blob)
    with pytest.raises(RuntimeError) as theirs:
        torch_mod.load(io.BytesIO(blob), weights_only=True)
    assert str(mine.value).startswith(str(theirs.value))
    for size, stride, offset in (((3,), (-1,), 2), ((3,), (1,), -1), ((2,), (10**20,), 0),
                                 ((1,), (10**20,), 0), ((10**20,), (0,), 0)):
        with pytest.raises(RuntimeError, match="negative or too large|not resizable"):
            load_bytes(tensor_file(3, size, stride, offset))


def test_truncated_corrupted_compressed_and_legacy_files_are_refused(torch_mod):
    blob = mg_bytes({"w": mg.ones(100)})
    for cut in (blob[: len(blob) // 2], blob[:-5], b"", b"just some text"):
        with pytest.raises(RuntimeError, match="PytorchStreamReader failed reading zip archive"):
            load_bytes(cut)
    files = records(blob)
    at = blob.index(np.ones(100, np.float32).tobytes())
    corrupt = blob[:at] + b"\x00" * 8 + blob[at + 8:]
    with pytest.raises(RuntimeError, match="failed reading record archive/data/0"):
        load_bytes(corrupt)
    with pytest.raises(RuntimeError, match="compressed"):
        load_bytes(archive(files, zipfile.ZIP_DEFLATED))
    legacy = io.BytesIO()
    torch_mod.save(torch_mod.ones(2), legacy, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="legacy format"):
        load_bytes(legacy.getvalue())


def test_the_plain_python_types_torch_allows_load_as_in_torch(torch_mod):
    from collections import Counter

    obj = {"set": {1, 2}, "bytes": b"\x00\xffab", "bytearray": bytearray(b"xy"),
           "complex": 1 + 2j, "counter": Counter("abca"), "od": OrderedDict(a=1),
           "dtype": torch_mod.float64, "size": torch_mod.Size([2, 3])}
    got = load_bytes(torch_bytes(torch_mod, obj))
    assert {k: got[k] for k in ("set", "bytes", "bytearray", "complex", "counter", "od")} == \
        {k: obj[k] for k in ("set", "bytes", "bytearray", "complex", "counter", "od")}
    assert got["dtype"] == mg.float64 and got["size"] == (2, 3)


@pytest.mark.parametrize("data", [
    b"\x80\x02}G?\xf0\x00\x00\x00\x00\x00\x00Ns.",  # {1.0: None}
    b"\x80\x02}\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01Ns.",  # {2**64: None}
    b"\x80\x02}K\x01K\x02\x86Ns.",  # {(1, 2): None}
    b"\x80\x02c__builtin__\nset\n]G?\xf0\x00\x00\x00\x00\x00\x00a\x85R.",  # set([1.0])
])
def test_keys_whose_hashes_a_file_could_make_collide_are_refused(data):
    with pytest.raises(pickle.UnpicklingError, match="quadratic time"):
        load_bytes(with_pickle(data))


def test_calls_may_not_copy_more_than_the_file_holds():
    items = b"](" + b"K\x01" * 200 + b"eq\x00"  # a list of 200 ints, memo 0
    make_set = b"c__builtin__\nset\nq\x01"  # the global set, memo 1
    data = b"\x80\x02" + items + make_set + b"(" + b"h\x01h\x00\x85R" * 10 + b"t."  # 10 sets
    with pytest.raises(pickle.UnpicklingError, match="take more items than the file holds"):
        load_bytes(with_pickle(data))
    with pytest.raises(pickle.UnpicklingError, match="refused its arguments"):
        load_bytes(with_pickle(b"\x80\x02c__builtin__\nbytearray\nJ\x00\xca\x9a;\x85R."))
