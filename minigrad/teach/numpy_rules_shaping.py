"""The numpy rules of the shaping ops: views, indexing, joining and splitting (`numpy_rules`)."""

from __future__ import annotations

from minigrad.teach.numpy_rules import Rule

SHAPING: dict[str, Rule] = {}
