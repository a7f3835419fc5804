"""The op catalogue of the coursework kit: every op an assignment can ask for, by name."""

from __future__ import annotations

from minigrad.course.entry import Op
from minigrad.course.ops_pointwise import POINTWISE
from minigrad.course.ops_tensor import TENSOR_OPS

OPS: dict[str, Op] = {op.name: op for op in POINTWISE + TENSOR_OPS}


def select(names: str | list[str] | None) -> list[Op]:
    """The ops named in `names` ("mul,div,exp" or a list), in the catalogue's order when
    given as a string; all of them for None. Unknown or repeated names are refused."""
    if names is None:
        return list(OPS.values())
    wanted = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    wanted = [n for n in wanted if n]
    if not wanted:
        raise ValueError("no op named: give a comma-separated list, e.g. --ops mul,exp,sum")
    unknown = [n for n in wanted if n not in OPS]
    if unknown:
        raise ValueError(f"unknown op{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                         f"the catalogue has: {', '.join(OPS)}")
    repeated = sorted({n for n in wanted if wanted.count(n) > 1})
    if repeated:
        raise ValueError(f"op named twice: {', '.join(repeated)}")
    return [OPS[n] for n in wanted]
