"""minigrad.load on files made to attack it: no code runs, no size is trusted, nothing takes
unbounded memory or time, and every refusal says why."""

from __future__ import annotations

import io
import os
import pickle
import zipfile

import numpy as np
import pytest
from test_save_load import archive, load_bytes, mg_bytes, records

import minigrad as mg


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


def test_records_that_overlap_in_the_file_cannot_claim_more_than_it_holds():
    """A zip trick: record data/1 lies inside record data/0's bytes, so the file holds its bytes
    once but a reader that trusts the directory reads them twice (a chain of these makes a
    small file claim a huge content)."""
    n1 = 10_000
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as z:
        z.writestr("archive/data/1", bytes(n1))
    inner_info = zipfile.ZipFile(inner).getinfo("archive/data/1")
    local = inner.getvalue()[: 30 + len("archive/data/1") + n1]  # its local header and bytes
    files = records(mg_bytes({"a": mg.zeros(len(local), dtype=mg.uint8),
                              "b": mg.zeros(n1, dtype=mg.uint8)}))
    files["archive/data/0"] = local
    del files["archive/data/1"]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
        outer = z.getinfo("archive/data/0")
        inner_info.header_offset = outer.header_offset + 30 + len(outer.filename) + len(
            outer.extra)
        z.filelist.append(inner_info)  # a directory entry pointing inside data/0
        z.NameToInfo[inner_info.filename] = inner_info
    with zipfile.ZipFile(io.BytesIO(out.getvalue())) as z:  # (the trick works on zipfile)
        assert len(z.read("archive/data/0")) + len(z.read("archive/data/1")) > len(out.getvalue())
    with pytest.raises(RuntimeError, match="more than the rest of the file holds"):
        load_bytes(out.getvalue())
