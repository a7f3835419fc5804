"""The zip archive of a checkpoint: writing its records, and reading them within bounds.

Reading trusts nothing the archive says about itself: only uncompressed records are read (what
torch.save writes; a compressed one could claim any size), each is checked against its CRC,
and all the records read together may not add up to more bytes than the file holds (records
that overlap in the file, a zip trick to make a small file claim a huge content, run out).
"""

from __future__ import annotations

import io
import os
import struct
import zipfile
from typing import IO, Any

from minigrad.serialization.formats import LEGACY_MAGIC, STORAGE_ALIGNMENT

CORRUPT = ("PytorchStreamReader failed reading zip archive: {}. The file is not a checkpoint "
           "torch.save or minigrad.save wrote, or it is truncated or corrupted (not saved "
           "completely, transferred incorrectly or modified after saving).")


def write_archive(f: Any, prefix: str, records: list[tuple[str, bytes]]) -> None:
    """Write `records` (name, bytes) under `prefix/` into the zip `f` (a path or a binary file
    object), uncompressed, each record's bytes starting at a multiple of 64 as torch's do."""
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as zf:
        for name, data in records:
            info = zipfile.ZipInfo(f"{prefix}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.extra = _padding(zf.fp, len(info.filename.encode("utf-8")))
            zf.writestr(info, data)


def _padding(fp: IO[bytes], name_length: int) -> bytes:
    """An extra field ('FB', as miniz writes for torch) that pads the local header so that the
    record's bytes start aligned. (None when the stream cannot tell where it is.)"""
    try:
        start = fp.tell() + 30 + name_length + 4  # local header, name, extra field's header
    except (OSError, AttributeError):
        return b""
    pad = -start % STORAGE_ALIGNMENT
    return b"FB" + struct.pack("<H", pad) + b"Z" * pad


class ArchiveReader:
    """The records of a checkpoint archive by name (without the top folder)."""

    def __init__(self, f: IO[bytes]) -> None:
        start = f.tell()
        head = f.read(len(LEGACY_MAGIC))
        if head == LEGACY_MAGIC:
            raise RuntimeError(
                "minigrad.load reads the zip format torch.save writes since PyTorch 1.6; this "
                "file is in the legacy format (saved with _use_new_zipfile_serialization=False)"
                ". Load it in PyTorch and save it again with torch.save(obj, f).")
        self.budget = f.seek(0, io.SEEK_END) - start
        f.seek(start)
        try:
            self.zip = zipfile.ZipFile(f)
            names = self.zip.namelist()
        except (zipfile.BadZipFile, ValueError, OSError) as e:
            raise RuntimeError(CORRUPT.format(f"failed finding central directory ({e})")) \
                from None
        pickles = [n for n in names if n.count("/") == 1 and n.endswith("/data.pkl")]
        if len(pickles) != 1:
            raise RuntimeError(CORRUPT.format("no single <folder>/data.pkl record in it"))
        self.prefix = pickles[0][: -len("data.pkl")]

    def has(self, name: str) -> bool:
        return self.prefix + name in self.zip.NameToInfo

    def size(self, name: str) -> int:
        return self.zip.getinfo(self.prefix + name).file_size

    def read(self, name: str) -> bytes:
        info = self.zip.getinfo(self.prefix + name)
        if info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size:
            raise RuntimeError(f"record {info.filename} is compressed: minigrad.load reads "
                               "the uncompressed records torch.save writes")
        if info.file_size > self.budget:
            raise RuntimeError(CORRUPT.format(
                f"record {info.filename} claims {info.file_size} bytes, more than the rest of "
                "the file holds"))
        self.budget -= info.file_size
        try:
            return self.zip.read(info)
        except (zipfile.BadZipFile, EOFError, OSError) as e:
            raise RuntimeError(CORRUPT.format(f"failed reading record {info.filename} ({e})")) \
                from None


def open_for(f: Any, mode: str) -> tuple[IO[bytes], bool]:
    """(a binary file object, whether we opened it) for a path or a file object."""
    if isinstance(f, (str, os.PathLike)):
        return open(os.fspath(f), mode), True
    if "w" in mode and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a "
                             "'write' attribute")
    if "r" in mode and not (hasattr(f, "read") and hasattr(f, "seek")):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with "
                             "'read' and 'seek' attributes")
    return f, False
