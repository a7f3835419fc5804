"""The player's style sheet (CSS), inlined into the page by `minigrad.teach.player`.

Kept as a Python string so that it ships inside the package like any module.
"""

STYLE = r"""
/* minigrad backward player: the page around graphviz's drawing, and the step highlights.
 * Colours: amber + red = the node running now; red = gradients it sends; blue = the
 * gradient it received; pale green = nodes already run. */

:root {
  --ink: #1f2933;
  --muted: #5f6b7a;
  --line: #d5dbe3;
  --card: #ffffff;
  --page: #f4f6f9;
  --current: #ffc94d;
  --current-edge: #d62828;
  --sent: #d62828;
  --incoming: #1d5fd8;
  --done: #d3f0dc;
  --done-edge: #2d6a4f;
  --mono: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas,
    "Liberation Mono", monospace;
  --mono-zh: "Sarasa Mono SC", "Noto Sans Mono CJK SC", "Source Han Mono SC",
    "Microsoft YaHei Mono", ui-monospace, "DejaVu Sans Mono", monospace;
}

* { box-sizing: border-box; }

/* wide windows: the page fills the window, the graph takes the room left, nothing scrolls but
   the graph and the right column; narrow windows: one column, the page scrolls */
body {
  display: flex;
  flex-direction: column;
  height: 100vh;
  margin: 0;
  background: var(--page);
  color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "PingFang SC", "Microsoft YaHei",
    "Noto Sans CJK SC", sans-serif;
}

header {
  display: flex;
  align-items: baseline;
  gap: 16px;
  flex-wrap: wrap;
  padding: 10px 20px;
  background: var(--card);
  border-bottom: 1px solid var(--line);
}
h1 { margin: 0; font-size: 17px; font-weight: 650; }
#pass-header { margin: 0; color: var(--muted); font-family: var(--mono); font-size: 13px; }
header button[data-action="lang"] { margin-left: auto; }

main {
  display: grid;
  flex: 1 1 auto;
  min-height: 0;
  grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
  gap: 16px;
  padding: 14px 20px 14px;
}
.left { display: flex; flex-direction: column; min-height: 0; }
.right { display: flex; flex-direction: column; gap: 14px; min-height: 0; }
@media (max-width: 1000px) {
  body { height: auto; }
  #leaves .table-box { max-height: 50vh; }
  main { grid-template-columns: minmax(0, 1fr); }
  .graph-box { flex: none; height: 65vh; }
}

/* -- the graph ------------------------------------------------------------------------------ */
.graph-box { position: relative; flex: 1 1 auto; min-height: 260px; }
/* zoom: three buttons in a row above the graph's top right corner, the one in use pressed */
.zoom { display: flex; align-self: flex-end; margin-bottom: 6px; }
.zoom button { padding: 2px 9px; font-size: 12px; border-radius: 0; }
.zoom button:first-child { border-radius: 6px 0 0 6px; }
.zoom button:last-child { border-radius: 0 6px 6px 0; }
.zoom button + button { margin-left: -1px; }
.zoom button[aria-pressed="true"] { color: #fff; background: var(--muted); }
#layout-note { margin: 6px 0 0; color: var(--muted); font-size: 12px; }
#graph {
  display: flex;
  position: absolute;
  inset: 0;
  padding: 12px;
  overflow: auto;
  scrollbar-gutter: stable; /* "fit width" fits the room left beside a scroll bar */
  background: var(--card);
  border: 1px solid var(--line);
  border-radius: 8px;
}
#graph svg { display: block; margin: auto; flex: none; }
.graph-box.empty { flex: none; min-height: 0; }  /* no drawing: just the message */
.graph-box.empty #graph { position: static; }
#graph .no-graph {
  margin: auto;
  max-width: 34em;
  padding: 14px 16px;
  color: #7a4b00;
  background: #fff6e0;
  border: 1px solid #f0d392;
  border-radius: 6px;
}

#graph g.runs { cursor: pointer; }
/* the player's own layout: a light box behind each top-level module, labelled in its corner */
#graph g.module text { font-size: 9px; }
/* edge labels in the same type as the nodes' (graphviz measured them in a larger font) */
#graph g.edge text { font-family: var(--mono); font-size: 9px; }
#graph g.node polygon, #graph g.edge path, #graph g.edge polygon {
  transition: fill 0.15s, stroke 0.15s;
}
#graph g.node.done polygon { fill: var(--done); stroke: var(--done-edge); }
#graph g.node.current polygon {
  fill: var(--current);
  stroke: var(--current-edge);
  stroke-width: 3px;
}
#graph g.node.current { filter: drop-shadow(0 0 5px rgba(214, 40, 40, 0.55)); }
#graph g.node.current text { font-weight: 700; }

/* gradients run against the arrows (from an op back to its inputs): the dashes move that way */
#graph g.edge.sent path {
  stroke: var(--sent);
  stroke-width: 3px;
  stroke-dasharray: 8 5;
  animation: backflow 0.6s linear infinite;
}
#graph g.edge.sent polygon { fill: var(--sent); stroke: var(--sent); }
#graph g.edge.sent text { fill: var(--sent); font-weight: 700; }
#graph g.edge.incoming path { stroke: var(--incoming); stroke-width: 3px; }
#graph g.edge.incoming polygon { fill: var(--incoming); stroke: var(--incoming); }
#graph g.edge.incoming text { fill: var(--incoming); }
@keyframes backflow { to { stroke-dashoffset: 26; } }
@media (prefers-reduced-motion: reduce) {
  #graph g.edge.sent path { animation: none; }
}

/* a gradient not computed yet is not shown */
#graph text.grad-pending { opacity: 0; }

/* -- controls ------------------------------------------------------------------------------- */
#controls {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: 8px;
  margin-top: 10px;
}
button, select {
  font: inherit;
  padding: 5px 12px;
  color: var(--ink);
  background: var(--card);
  border: 1px solid #b9c2cd;
  border-radius: 6px;
  cursor: pointer;
}
button:hover:not(:disabled) { border-color: var(--incoming); }
button:disabled { opacity: 0.4; cursor: default; }
button[data-action="next"] {
  color: #fff;
  background: var(--incoming);
  border-color: var(--incoming);
}
button[data-action="play"].playing { background: #fff1c7; border-color: #e0a800; }
select { padding: 4px 6px; }
.speed { display: inline-flex; align-items: center; gap: 4px; color: var(--muted); }
#step-slider { flex: 1 1 100px; min-width: 90px; accent-color: var(--sent); }
#step-count { min-width: 4.5em; font-family: var(--mono); color: var(--muted); }

.legend {
  display: flex;
  flex-wrap: wrap;
  gap: 14px;
  margin-top: 8px;
  color: var(--muted);
  font-size: 13px;
}
.key { display: inline-flex; align-items: center; gap: 5px; }
.key i { display: inline-block; width: 22px; height: 12px; border-radius: 3px; }
.key.current i { background: var(--current); border: 2px solid var(--current-edge); }
.key.done i { background: var(--done); border: 1px solid var(--done-edge); }
.key.sent i { height: 0; border-top: 3px dashed var(--sent); border-radius: 0; }
.key.incoming i { height: 0; border-top: 3px solid var(--incoming); border-radius: 0; }
.keys { margin: 4px 0 0; color: var(--muted); font-size: 12px; }

/* -- the step's explanation and the leaves ---------------------------------------------------- */
#step-panel, #leaves {
  padding: 12px 16px 14px;
  background: var(--card);
  border: 1px solid var(--line);
  border-radius: 8px;
}
/* the step's text takes what it needs (scrolling past a screenful); the leaves the rest */
#step-panel { flex: none; max-height: 68%; overflow-y: auto; }
#leaves { display: flex; flex: 1 1 0; flex-direction: column; min-height: 150px; }
#leaves .table-box { flex: 1 1 auto; min-height: 0; overflow-y: auto; }
h2 { margin: 0 0 8px; font-size: 16px; }
#step-hint { margin: 0 0 8px; color: var(--muted); }
pre {
  margin: 0;
  font-family: var(--mono);
  font-size: 12px;
  line-height: 1.45;
}
:lang(zh) pre, :lang(zh) #pass-header { font-family: var(--mono-zh); }
#step-text {
  padding: 10px 12px;
  overflow-x: auto; /* tensors stay aligned as PyTorch prints them; long lines scroll */
  background: #fbfaf5;
  border-left: 4px solid var(--current);
  border-radius: 4px;
}

/* the table never scrolls sideways: a long name wraps (after a dot or "_", see the script;
   anywhere if it must), and so does a long value */
#leaves .table-box { overflow-x: hidden; }
#leaf-grads { width: 100%; table-layout: fixed; border-collapse: collapse; }
#leaf-grads td { padding: 4px 8px; vertical-align: top; border-top: 1px solid #edf0f4; }
#leaf-grads tr:first-child td { border-top: none; }
#leaf-grads .leaf-name { width: 34%; overflow-wrap: anywhere; }
#leaf-grads .leaf-name code { font-family: var(--mono); font-weight: 600; }
#leaf-grads .leaf-name small { color: var(--muted); font-family: var(--mono); white-space: nowrap; }
#leaf-grads td pre { font-size: 11px; white-space: pre-wrap; overflow-wrap: anywhere; }
#leaf-grads tr.none pre { color: #9aa5b1; font-style: italic; }
#leaf-grads tr.changed td { background: #fff4d1; }
#leaf-grads tr.changed td:first-child { box-shadow: inset 4px 0 0 var(--current-edge); }

/* a step changes the panel's text and rows of the leaves' table: with these boxes contained
   (their size comes from the page, not their content), neither makes the browser lay the
   drawing out again, which was most of a step's time on a graph of a thousand nodes */
#graph, #leaves .table-box { contain: strict; }
.graph-box.empty #graph { contain: none; }  /* sized by its message */
@media (max-width: 1000px) {
  #leaves .table-box { contain: none; }  /* one column: the table takes the height it needs */
}
"""
