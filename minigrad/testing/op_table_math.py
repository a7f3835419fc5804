"""Op-table entries for float math, reductions, statistics, cumulative ops, comparisons
(see op_table.py; `unary`/`binary` are in op_spec.py)."""

from __future__ import annotations

from minigrad.testing.op_spec import OpSpec

MATH: list[OpSpec] = []
