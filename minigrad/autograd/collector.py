"""`collector_paused()`: Python's cycle collector off while a backward pass runs, and while
the teaching tools make records.

A long graph is hundreds of thousands of small objects (nodes, their edges) that stay alive;
recording and narrating it make as many again (records, lists, strings' holders). Each time
enough new ones pile up, Python runs a collection, and a full one walks every object in the
process (the user's graph, and every module's objects: torch's alone are ~180,000) to free
nothing: 0.1 s each with torch imported. Reference counting frees garbage the same with or
without the collector; only reference cycles wait, until the next collection after the block.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector off for the block; back on after it if it was on before.

    speed: `trace(y)` of the bench's 10,000-node chain 1.29 s -> 0.43 s and its
    `explanation()` 0.72 s -> 0.60 s (medians of 4 interleaved runs each, loaded machine;
    three full collections of about 0.25 s each are gone); `compare bench --only explain`,
    main and this interleaved: trace(y) 2.55, 2.49 s -> 1.44, 0.90 s (load 10). (Under
    callgrind_counts.py, which freezes the objects alive before its runs, a collection is
    cheap: there it buys no instructions.) Around a backward pass (autograd.drain):
    `compare bench --only deep`, the 1,000,000-deep chain 9.32, 9.87, 10.39 -> 8.85, 9.00,
    8.76 us/node (-10%, three runs each, alternating; load 1.9); the 100,000-deep line, whose
    bench freezes the objects alive before each run, moves within its noise. In a process
    that freezes nothing (torch imported), forward and backward of the 100,000-deep chain
    11.04 -> 10.13 us/node (-8%, medians of 10 interleaved runs, CPU time). Used only
    around the teaching tools' own work and a backward pass, never around the user's
    forward code.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
