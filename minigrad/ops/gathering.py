"""Indexing helpers: gather, scatter, index_select, masked_fill, masked_select, nonzero,
where(cond).
"""

from __future__ import annotations

__all__: list[str] = []
