"""The teaching layer: what `minigrad.trace()`, `Trace.explain()` and the drawings are made of.

It reads the engine's events and the nodes' public API (the private reads left are listed in
`recorder`); the core never imports it.

- `records`: the plain data a Trace is made of (`TraceNode`, `TraceStep`, ...);
- `recorder`: the events listener that turns a live forward/backward into those records,
  with `settings` (each op's settings, from its ForwardOp), `copies` (values as they were,
  one copy per tensor version) and `labels` (variable names, source lines, constant text);
- `trace`: `trace()` and `Trace`, the records with their views (`explain`, `to_dot`, `to_html`);
- `op_words`: each node, by its PyTorch name (`MulBackward0`), put into words from its op
  class's `source` (`t3 = x * y`) and `gradients` (`grad * y`), with a teacher's remarks;
- `phrases`: the sentences of the narration in English and Chinese;
- `explain`: the narration itself, laid out from the records;
- `modules`: which module made each op (read from `nn.Module`'s call stack while recording);
  `module_tree`, `module_view`, `module_drawing`: the modules as a tree, one box per module at
  a depth with repeated blocks folded, drawn; `focus`: one module's part as a Trace of its
  own; `summary` (+ `summary_phrases`): the table of each module's gradient a long
  explanation opens with;
- `viz` (+ `drawing_parts`, `view_phrases`): the graph as graphviz DOT; `player`
  (+ `player_assets/`): the HTML page that plays it;
- `expr`: the safe expression parser behind `trace("sum(x*y)*3", ...)` and the command line;
- `tutorial`: the runner that checks the lessons' printed outputs.
"""
