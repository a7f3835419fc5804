"""The numpy rules of products, softmaxes, losses and layers (`numpy_rules`)."""

from __future__ import annotations

from minigrad.teach.numpy_rules import Rule

LAYERS: dict[str, Rule] = {}
