"""Shaping: split, chunk, unbind, flip, roll, repeat, repeat_interleave, tile, movedim, unflatten,
diagonal, diag, tril, triu, unfold.
"""

from __future__ import annotations

__all__: list[str] = []
