"""Op-table entries for shaping, indexing helpers and sorting (see op_table.py;
`unary`/`binary` are in op_spec.py)."""

from __future__ import annotations

from minigrad.testing.op_spec import OpSpec

SHAPING: list[OpSpec] = []
