"""Corpus cases for shaping, indexing helpers and sorting (see corpus.py)."""

from __future__ import annotations

from compare.cases import Case

SHAPING: list[Case] = []
