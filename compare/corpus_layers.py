"""Corpus cases for nn layers: convolution, pooling, normalisation, embedding, attention,
recurrent layers (see corpus.py)."""

from __future__ import annotations

from compare.cases import Case

LAYERS: list[Case] = []
