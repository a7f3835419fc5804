"""One convention for everything minigrad says in English and in Chinese.

Every sentence that exists in both languages lives in a *phrase table*: a module-level dict
from language to key to text,

    WORDS: dict[str, dict[str, str]] = {
        "en": {"wrote": "Wrote {path}"},
        "zh": {"wrote": "已写入 {path}"},
    }

with the same keys, and the same `{placeholders}`, in every language. Code picks one with
`say(WORDS, lang, "wrote", path=p)`, or both with `both(WORDS, "wrote", path=p)` for an error
that carries both (English as its message, Chinese as its `.zh`). Where the key of a table is
the English text itself (a derivative rule's formula), the table lists only "zh", and the
English is the key. Chinese appears nowhere else in the code: tests/teach/test_phrase_tables.py
finds every table in `minigrad/` and `compare/`, checks its keys and placeholders, and fails on
a Chinese string outside a table.

The tables: the narration (`phrases`, `summary_phrases`), the drawings (`view_phrases`), the
player (`player_words`), string expressions (`expr_words`), the lessons' runner and notebooks
(`tutorial_words`), the command line (`minigrad/__main__.py`), `grad_report`
(`minigrad/nn/grad_report.py`) and the DDP narration (`compare/trace_ddp.py`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["LANGS", "both", "say"]

LANGS = ("en", "zh")


def say(table: dict[str, dict[str, str]], lang: str, key: str, **values: Any) -> str:
    """`table[lang][key]` with its placeholders filled in. A value given as a dict with an
    entry per language (`{"en": "a lambda", "zh": "lambda"}`) is said in `lang`."""
    filled = {k: v[lang] if isinstance(v, dict) and set(v) == set(LANGS) else v
              for k, v in values.items()}
    return table[lang][key].format(**filled)


def both(table: dict[str, dict[str, str]], key: str, **values: Any) -> tuple[str, str]:
    """The sentence in English and in Chinese: `(say(..., "en", ...), say(..., "zh", ...))`."""
    return say(table, "en", key, **values), say(table, "zh", key, **values)
