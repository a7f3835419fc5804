"""Op-table entries for the nn layers: convolution, pooling, normalisation, embedding, attention
(see op_table.py; `unary`/`binary` are in op_spec.py)."""

from __future__ import annotations

from minigrad.testing.op_spec import OpSpec

LAYERS: list[OpSpec] = []
