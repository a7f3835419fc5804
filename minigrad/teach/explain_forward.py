"""The narration of forward-mode passes and function transforms, in English or Chinese.

A forward-mode pass reads like a backward pass turned around: each op's value, its JVP rule
in the dual-number notation (`t1' = x' * y + x * y'`, where `x'` is x's tangent), and the
tangent it gives with the incoming tangents' numbers put in. Terms for inputs that carry no
tangent are left out of the rule, and said so. A transform reads as one line: how many backward
and forward-mode passes ran inside it and why that many (one per output element, one per
input element, vmap per sample and why).

Called by `explain.py` with its narrator, whose `value` and `inline` format the numbers.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from minigrad.teach.forward_phrases import FORWARD_PHRASES
from minigrad.teach.op_words import fill
from minigrad.teach.text_width import pad, width

TERM = re.compile(r"\{t(\d+)\}")


def forward_sections(narrator: Any) -> list[str]:
    """Every forward-mode pass of the trace, each after a blank line."""
    out: list[str] = []
    many = len(narrator.trace.forwards) > 1
    for k, record in enumerate(narrator.trace.forwards, 1):
        out.append("")
        out += _pass(narrator, record, k if many else None)
    return out


def forward_only(narrator: Any) -> list[str]:
    """The whole narration of a trace that recorded forward-mode work and no graph."""
    say = FORWARD_PHRASES[narrator.lang]
    out = forward_sections(narrator)[1:] + transform_lines(narrator)
    ops = sum(len(f.steps) for f in narrator.trace.forwards)
    passes = len(narrator.trace.forwards)
    return out + ["", say["summary"].format(ops=ops, s="" if ops == 1 else "s", passes=passes,
                                            es="" if passes == 1 else "es")]


def _pass(narrator: Any, record: Any, k: int | None) -> list[str]:
    say = FORWARD_PHRASES[narrator.lang]
    n = len(record.steps)
    out = [say["head"].format(k=f" {k}" if k else "", n=n, s="" if n == 1 else "s")]
    if record.inputs:
        sep = narrator.p["sep"]
        parts = [f"{label} = {narrator.value(v)}{sep}{label}' = {narrator.value(t)}"
                 for label, v, t in record.inputs]
        out.append("  " + say["inputs"] + narrator.p["sep"].join(parts))
    if not record.steps:
        return out
    number_width = max(width(narrator.say("step", i=s.index)) for s in record.steps)
    name_width = max([14] + [len(s.name) for s in record.steps]) + 1
    col = max(width(say[w]) for w in ("value", "rule", "tangent")) + 2
    for step in record.steps:
        head = f"  {pad(narrator.say('step', i=step.index), number_width)}  "
        indent = " " * width(head)
        out.append(head + pad(step.name, name_width) + f"{step.label} = {step.source}")
        out.append(indent + pad(say["value"], col) + narrator.value(step.value))
        rule, numbers, silent = _rule(narrator, step)
        if rule is not None:
            note = ""
            if silent:
                names = narrator.p["sep"].join(silent)
                note = "   " + narrator.p["open"] + say["no_tangent"].format(
                    names=names, ies="ies" if len(silent) == 1 else "y",
                    primes=" = ".join(f"{s}'" for s in silent)) + narrator.p["close"]
            out.append(indent + pad(say["rule"], col) + f"{step.label}' = {rule}" + note)
        value = narrator.value(step.tangent)
        text = value if numbers is None or numbers == value else f"{numbers} = {value}"
        out.append(indent + pad(say["tangent"], col) + text)
    last = record.steps[-1]
    out.append("  " + say["result"].format(label=last.label, value=narrator.value(last.tangent)))
    return out


def _rule(narrator: Any, step: Any) -> tuple[str | None, str | None, list[str]]:
    """(the rule with tangents as x', the rule with the tangents' numbers, the inputs that
    carry no tangent). Terms of those inputs are dropped where the rule is a sum of terms."""
    if not step.rule:
        return None, None, []
    zero = _zero(step)
    silent = [step.args[i] for i in sorted(zero) if i < len(step.args)
              and not _is_number(step.args[i])]
    text = _drop_terms(step.rule, zero)
    numbers = {f"t{i}": narrator.inline(t) or f"{step.args[i]}'"
               for i, t in enumerate(step.tangents) if i < len(step.args)}
    symbolic = rule_text(step)
    with_numbers = fill(text, step.args, step.attrs, step.shape, {**numbers, "out": step.label})
    return symbolic, with_numbers if symbolic is not None else None, silent


def rule_text(step: Any) -> str | None:
    """A step's JVP rule with tangents as x' (`t1' = x' * y + x * y'` less `t1' = `), the
    terms of the inputs without a tangent left out; None when it has none that fits."""
    if not step.rule:
        return None
    primes = {f"t{i}": f"{a}'" for i, a in enumerate(step.args)}
    return fill(_drop_terms(step.rule, _zero(step)), step.args, step.attrs, step.shape,
                {**primes, "out": step.label})


def _zero(step: Any) -> set[int]:
    """The inputs of a step whose tangent is zero or missing."""
    return {i for i, t in enumerate(step.tangents)
            if t is not None and not np.any(t) or t is None and i < len(step.args)}


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _drop_terms(rule: str, zero: set[int]) -> str:
    """The rule without its terms in the tangents of `zero` (inputs without one) where it is a
    sum of terms; a tangent of `zero` inside a bigger term reads 0."""
    terms, depth, start = [], 0, 0
    for i, ch in enumerate(rule):
        depth += 1 if ch in "([" else -1 if ch in ")]" else 0
        if depth == 0 and rule[i:i + 3] in (" + ", " - "):
            terms.append(rule[start:i])
            start = i + 1
    terms.append(rule[start:])
    kept = []
    for term in terms:
        refs = {int(m) for m in TERM.findall(term)}
        if refs and refs <= zero:
            continue  # (a term in a zero tangent only: it is 0)
        kept.append(TERM.sub(lambda m: "0" if int(m.group(1)) in zero else m.group(0), term))
    text = " ".join(kept).strip()
    if not text:
        return "0"
    return text[2:] if text.startswith("+ ") else text


# -- function transforms --------------------------------------------------------------------
def transform_lines(narrator: Any) -> list[str]:
    """One line per transform the trace saw (its inner transforms below it, repeats folded)."""
    records = narrator.trace.transforms
    if not records:
        return []
    say = FORWARD_PHRASES[narrator.lang]
    return ["", say["transforms"].format(n=len(records))] + _folded(records, narrator.lang, 1)


def _folded(records: list, lang: str, depth: int) -> list[str]:
    """The lines of `records` and their inner transforms (three levels deep), a run of equal
    ones written once with how many times it ran."""
    say = FORWARD_PHRASES[lang]
    blocks: list[list] = []  # [lines, times]
    for record in records:
        lines = [describe(record, lang, depth)]
        if depth < 3:
            lines += _folded(record.inner, lang, depth + 1)
        if blocks and blocks[-1][0] == lines:
            blocks[-1][1] += 1
        else:
            blocks.append([lines, 1])
    out = []
    for lines, times in blocks:
        suffix = say["times"].format(n=times) if times > 1 else ""
        out += [lines[0] + suffix] + lines[1:]
    return out


def describe(record: Any, lang: str, depth: int = 1) -> str:
    """`func.jacrev: 6 backward passes: one backward pass per output element (6)`."""
    say = FORWARD_PHRASES[lang]
    counts = []
    if record.forward_passes:
        n = record.forward_passes
        counts.append(say["forward"].format(n=n, es="" if n == 1 else "es"))
    if record.backward_passes:
        n = record.backward_passes
        counts.append(say["backward"].format(n=n, es="" if n == 1 else "es"))
    passes = say["and"].join(counts) or say["none"]
    notes = record.notes
    why = say.get(record.name, "").format(**{"samples": notes.get("samples", "?")})
    if "rows" in notes:
        why = say["reverse_rows"].format(rows=notes["rows"])
    elif "columns" in notes:
        why = say["forward_columns"].format(columns=notes["columns"])
    if record.name == "func.vmap":
        how = say["batched"] if notes.get("how") == "batched" else say["per_sample"]
        why = how.format(samples=notes.get("samples", "?"), because=_because(notes, say))
    name = record.name + (f" ({notes['strategy']})" if "strategy" in notes else "")
    sep = "：" if lang == "zh" else ": "
    return "  " * depth + f"{name}{sep}{passes}" + (f"{sep}{why}" if why else "")


def _because(notes: dict, say: dict) -> str:
    op = notes.get("because", "")
    op = say.get(f"op_{op}", op)
    return say["because_" + notes.get("kind", "rule")].format(op=op)
