"""More one-input float functions (floor, ceil, round, trunc, sign, erf, log1p, expm1, asin, ...).
"""

from __future__ import annotations

__all__: list[str] = []
