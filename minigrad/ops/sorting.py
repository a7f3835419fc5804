"""Sorting and order statistics: sort, argsort, topk, kthvalue, median, mode.
"""

from __future__ import annotations

__all__: list[str] = []
