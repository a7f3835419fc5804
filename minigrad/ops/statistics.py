"""Statistics over dims: var, std, prod, logsumexp, ....
"""

from __future__ import annotations

__all__: list[str] = []
