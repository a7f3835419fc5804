"""Never-recorded tests and logic: any, all, isnan, isinf, isfinite, isclose, allclose, equal,
logical_* and bitwise ops.
"""

from __future__ import annotations

__all__: list[str] = []
