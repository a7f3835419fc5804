"""The pieces behind `minigrad.trace()` and `Trace.explain()`, one job per module.

- `records`: the plain data a Trace is made of (`TraceNode`, `TraceStep`, ...);
- `recorder`: the events listener that turns a live forward/backward into those records;
- `ops`: each node, by its PyTorch name (`MulBackward0`), put into words: its source form
  (`t3 = x * y`), the gradient each input gets (`grad * y`), a teacher's remarks;
- `phrases`: the sentences of the narration in English and Chinese.
The layout of the narration itself is `minigrad.explain`.
"""
