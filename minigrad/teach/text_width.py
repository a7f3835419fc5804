"""How wide text is in a terminal, for the narration's columns (Chinese characters take two);
`explain` re-exports these for the player."""

from __future__ import annotations

import re

# East Asian wide and fullwidth characters (CJK, Hangul, fullwidth forms) take two columns
_WIDE = re.compile("[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff"
                   "\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60"
                   "\uffe0-\uffe6]")


def width(text: str) -> int:
    """Columns `text` takes in a terminal: Chinese characters take two."""
    if text.isascii():
        return len(text)
    return len(text) + len(_WIDE.findall(text))


def pad(text: str, columns: int) -> str:
    return text + " " * max(columns - width(text), 0)
