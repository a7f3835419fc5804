"""Corpus cases for float math, reductions, statistics, cumulative ops and comparisons
(see corpus.py)."""

from __future__ import annotations

from compare.cases import Case

MATH: list[Case] = []
