"""The player's script (JavaScript), inlined into the page by `minigrad.teach.player`.

Kept as a Python string so that it ships inside the package like any module.
"""

SCRIPT = r"""
/* minigrad backward player: steps through a recorded backward pass on its drawn graph.
 *
 * minigrad/teach/player.py builds the page around this script:
 *   - #graph holds the drawing, graphviz's SVG or one shaped like it (player_layout.py): one
 *     <g class="node"> per node, whose <title> is the trace's node id ("n5"), and one
 *     <g class="edge"> per edge, titled "input->user" ("n4->n5");
 *   - #player-data holds everything precomputed in Python (see player.py): per step the node
 *     run, the edges its gradients leave and arrive along, the leaves' .grad accumulations,
 *     and the narration of every step from explain.py, in English and Chinese.
 * Moving to a step only toggles classes on the few elements that step touches and fills in
 * the panel, so the page stays quick on graphs of a thousand nodes (nothing is laid out
 * again).
 *
 * Hooks for tests: the controls carry data-action="prev" | "next" | "play" | "lang" | "zoom"
 * (with data-zoom="whole" | "width" | "actual");
 * document.body.dataset.step is the current step (0 = nothing run yet); the SVG group of the
 * node being run has the class "current"; the explanation is #step-panel.
 */
(function () {
  "use strict";

  const data = JSON.parse(document.getElementById("player-data").textContent);
  const steps = data.steps; // steps[k - 1] is step k
  const last = steps.length;
  let lang = data.lang;
  let step = 0;
  let timer = null; // the interval while playing
  let delay = 1000; // milliseconds per step while playing

  const $ = (selector) => document.querySelector(selector);
  const ui = (key) => data.ui[lang][key];
  const fill = (text, values) => text.replace(/\{(\w+)\}/g, (_, name) => values[name]);
  // a value is one string, or {en: ..., zh: ...} when it has words in it (statistics)
  const pick = (value) => (value !== null && typeof value === "object" ? value[lang] : value);

  // -- the drawing: SVG groups by their <title> ---------------------------------------------
  const graph = $("#graph");
  const svg = graph.querySelector("svg");
  const groups = new Map(); // "n5" or "n4->n5" -> [<g>, ...] (a*a draws two edges alike)
  if (svg) {
    for (const g of svg.querySelectorAll("g.node, g.edge")) {
      const title = g.querySelector(":scope > title");
      if (!title) continue;
      const key = title.textContent.trim();
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(g);
    }
  }
  const elements = (key) => groups.get(key) || [];

  // The drawing shows every gradient ("grad ..." lines); each stays hidden until the step
  // that computes it. revealAt[k] lists the <text>s that appear at step k.
  const revealAt = [];
  for (const [key, k] of data.reveal) {
    for (const g of elements(key)) {
      for (const text of g.querySelectorAll("text")) {
        if (!text.textContent.startsWith("grad ")) continue;
        text.classList.add("grad-pending");
        (revealAt[k] = revealAt[k] || []).push(text);
      }
    }
  }

  // The drawing's own words ("step 3", "grad ...", "norm") in the page's language: the
  // English text of each <text> that has some, put into words as the language changes.
  const drawnWords = [];
  if (svg) {
    for (const text of svg.querySelectorAll("text")) {
      const english = text.textContent;
      if (/^steps? \d|^grad | norm /.test(english)) drawnWords.push([text, english]);
    }
  }
  function drawn(english) {
    const steps = /^(steps?) (\d+(?:, \d+)*)$/.exec(english);
    if (steps) {
      const k = steps[2].split(", ").join(ui("drawn_sep"));
      return fill(ui(steps[1] === "step" ? "drawn_step" : "drawn_steps"), { k: k });
    }
    return english.replace(/^grad /, ui("drawn_grad") + " ")
      .replace(/ norm /, " " + ui("drawn_norm") + " ");
  }

  // Clicking a node jumps to the (next) step that runs it.
  const runs = new Map(); // node id -> the steps that run it
  steps.forEach((s, i) => {
    if (!runs.has(s.node)) runs.set(s.node, []);
    runs.get(s.node).push(i + 1);
  });
  for (const [id, list] of runs) {
    for (const g of elements(id)) {
      g.classList.add("runs");
      g.addEventListener("click", () => go(list.find((k) => k > step) || list[0]));
    }
  }

  // -- the leaves' table ----------------------------------------------------------------------
  const grads = data.leaves.map((leaf) => leaf.grad); // .grad as of the current step
  const cells = data.leaves.map((leaf) => {
    const row = $("#leaf-grads tbody").insertRow();
    const name = row.insertCell();
    name.className = "leaf-name";
    name.innerHTML = "<code></code> <small></small>";
    const suffix = ui("grad_suffix"); // ".grad" (the forward-mode player: "'", a tangent)
    name.title = leaf.label + suffix + " " + leaf.shape; // the full name, however it wraps
    // a long name ("encoder.layers.0.self_attn.in_proj_weight") wraps after a dot or "_"
    for (const part of (leaf.label + suffix).split(/(?<=[._])/)) {
      name.firstChild.append(part, document.createElement("wbr"));
    }
    name.lastChild.textContent = leaf.shape;
    const value = row.insertCell();
    value.innerHTML = "<pre></pre>";
    return { row: row, pre: value.firstChild };
  });
  function showGrad(i) {
    const value = pick(grads[i]);
    cells[i].pre.textContent = value === null ? "None" : value;
    cells[i].row.classList.toggle("none", value === null);
  }

  // -- moving between steps -------------------------------------------------------------------
  const done = new Map(); // node id -> how many of its runs are at or before the step
  let marked = []; // [element, class] set for the current step, undone when leaving it

  function mark(element, cls) {
    element.classList.add(cls);
    marked.push([element, cls]);
  }

  // Apply step k's lasting effects (forward = true) or undo them (false).
  function apply(k, forward) {
    const s = steps[k - 1];
    const count = (done.get(s.node) || 0) + (forward ? 1 : -1);
    done.set(s.node, count);
    for (const g of elements(s.node)) g.classList.toggle("done", count > 0);
    for (const text of revealAt[k] || []) text.classList.toggle("grad-pending", !forward);
    const accumulations = forward ? s.acc : s.acc.slice().reverse();
    for (const [row, before, after] of accumulations) {
      grads[row] = forward ? after : before;
      showGrad(row);
    }
  }

  function go(k) {
    k = Math.max(0, Math.min(last, k));
    if (k === step && document.body.dataset.ready) return;
    for (let i = step + 1; i <= k; i++) apply(i, true);
    for (let i = step; i > k; i--) apply(i, false);
    for (const [element, cls] of marked) element.classList.remove(cls);
    marked = [];
    step = k;
    if (k > 0) {
      const s = steps[k - 1];
      for (const g of elements(s.node)) mark(g, "current");
      for (const key of s.sent) for (const g of elements(key)) mark(g, "sent");
      for (const key of s.incoming) for (const g of elements(key)) mark(g, "incoming");
      for (const [row] of s.acc) mark(cells[row].row, "changed");
    }
    // in sight: the node being run, or before the first step the node backward starts at
    inSight = elements(steps[Math.max(k, 1) - 1] ? steps[Math.max(k, 1) - 1].node : "")[0];
    if (inSight && !viewPending) {
      viewPending = true;
      requestAnimationFrame(keepInView); // once per frame, however fast the steps come
    }
    document.body.dataset.step = String(k);
    $("#step-slider").value = String(k);
    $("#step-count").textContent = k + " " + fill(ui("of"), { n: last });
    $('[data-action="prev"]').disabled = k === 0;
    $('[data-action="next"]').disabled = k === last;
    if (k === last) stop();
    showPanel();
  }

  // The step's narration (explain.py's text for it), in the current language.
  function showPanel() {
    const text = data.text[lang];
    const s = steps[step - 1];
    $("#pass-header").textContent = text.passes[s ? s.pass : 0] || "";
    if (step === 0) {
      $("#step-title").textContent = ui("before");
      $("#step-hint").textContent = last ? ui("start") : ui("no_steps");
      $("#step-text").textContent = text.intro;
    } else {
      $("#step-title").textContent = fill(ui("step"), { k: step, n: last });
      $("#step-hint").textContent = step === last ? ui("finished") : "";
      // the first line names the node ("MulBackward0   t1 = x * y"): set it in bold
      const lines = text.steps[step - 1].split("\n");
      const head = document.createElement("strong");
      head.textContent = lines[0];
      let rest = lines.slice(1).map((line) => "\n" + line).join("");
      if (step === last && text.ending) rest += "\n\n" + text.ending;
      $("#step-text").replaceChildren(head, rest);
    }
    $("#step-hint").hidden = !$("#step-hint").textContent;
  }

  // Scroll the graph (not the page) so that the node being run is in sight; and the leaves'
  // table so that the rows this step changed are.
  let inSight = null;
  let viewPending = false;
  function keepInView() {
    viewPending = false;
    const changed = $("#leaf-grads tr.changed");
    if (changed) scrollWithin($("#leaves .table-box"), changed, "auto");
    if (inSight && zoomed === "step") aroundStep();
    else if (inSight) scrollWithin(graph, inSight, timer ? "smooth" : "auto");
  }
  function scrollWithin(view, element, behavior) {
    const box = element.getBoundingClientRect();
    const room = view.getBoundingClientRect();
    const margin = 30;
    let dy = 0;
    let dx = 0;
    if (box.top < room.top + margin || box.bottom > room.bottom - margin) {
      dy = (box.top + box.bottom) / 2 - (room.top + room.bottom) / 2;
    }
    if (box.left < room.left + margin || box.right > room.right - margin) {
      dx = (box.left + box.right) / 2 - (room.left + room.right) / 2;
    }
    if (dx || dy) view.scrollBy({ left: dx, top: dy, behavior: behavior });
  }

  // -- playing ---------------------------------------------------------------------------------
  function play() {
    if (step === last) go(0);
    timer = setInterval(() => go(step + 1), delay);
    labelPlay();
  }
  function stop() {
    clearInterval(timer);
    timer = null;
    labelPlay();
  }
  function labelPlay() {
    const button = $('[data-action="play"]');
    button.dataset.ui = timer ? "pause" : "play";
    button.textContent = ui(button.dataset.ui);
    button.classList.toggle("playing", Boolean(timer));
  }

  // -- zoom: the whole graph in the box, its width (scroll down), or its natural size ---------
  const natural = svg && {
    width: (parseFloat(svg.getAttribute("width")) * 4) / 3, // graphviz sizes in pt
    height: (parseFloat(svg.getAttribute("height")) * 4) / 3,
  };
  let zoomed = "whole";
  function room() {
    const style = getComputedStyle(graph);
    const inside = (size, a, b) => size - parseFloat(a) - parseFloat(b);
    return {
      width: inside(graph.clientWidth, style.paddingLeft, style.paddingRight),
      height: inside(graph.clientHeight, style.paddingTop, style.paddingBottom),
    };
  }
  function scaleFor(how) {
    if (how === "actual") return 1;
    const { width, height } = room();
    return Math.min(1, width / natural.width, how === "whole" ? height / natural.height : 1);
  }
  function zoom(how) {
    if (!natural || !natural.width) return;
    zoomed = how;
    if (how === "step") aroundStep();
    else resize(scaleFor(how));
    for (const button of document.querySelectorAll('[data-action="zoom"]')) {
      button.setAttribute("aria-pressed", String(button.dataset.zoom === how));
    }
  }
  function resize(scale) {
    svg.style.width = natural.width * scale + "px";
    svg.style.height = natural.height * scale + "px";
  }
  // "around the step": the node being run and the edges its gradients come in and go out
  // along, as large as the box allows (at most their natural size), in the middle of it
  function aroundStep() {
    const s = steps[Math.max(step, 1) - 1];
    if (!s) return;
    const page = svg.getBoundingClientRect();
    const scale = page.width / natural.width;
    let box = null; // in the drawing's natural pixels
    for (const key of [s.node, ...s.sent, ...s.incoming]) {
      for (const g of elements(key)) {
        const r = g.getBoundingClientRect();
        const [left, top] = [(r.left - page.left) / scale, (r.top - page.top) / scale];
        const [right, bottom] = [left + r.width / scale, top + r.height / scale];
        box = box ? { left: Math.min(box.left, left), top: Math.min(box.top, top),
          right: Math.max(box.right, right), bottom: Math.max(box.bottom, bottom) }
          : { left: left, top: top, right: right, bottom: bottom };
      }
    }
    if (!box) return;
    const margin = 40;
    const space = room();
    const fits = Math.min(space.width / (box.right - box.left + margin),
      space.height / (box.bottom - box.top + margin));
    const now = Math.max(0.2, Math.min(1, fits));
    resize(now);
    const after = svg.getBoundingClientRect();
    const view = graph.getBoundingClientRect();
    graph.scrollBy({
      left: after.left + ((box.left + box.right) / 2) * now - (view.left + view.right) / 2,
      top: after.top + ((box.top + box.bottom) / 2) * now - (view.top + view.bottom) / 2,
      behavior: "auto",
    });
  }

  // -- language --------------------------------------------------------------------------------
  function setLanguage(code) {
    lang = code;
    document.documentElement.lang = code === "zh" ? "zh-CN" : code;
    document.title = ui("title");
    for (const element of document.querySelectorAll("[data-ui]")) {
      const values = element.dataset.fill ? JSON.parse(element.dataset.fill) : {};
      element.textContent = fill(ui(element.dataset.ui), values);
    }
    for (const element of document.querySelectorAll("[data-ui-label]")) {
      element.setAttribute("aria-label", ui(element.dataset.uiLabel));
    }
    for (const [text, english] of drawnWords) text.textContent = drawn(english);
    grads.forEach((_, i) => showGrad(i));
    showPanel();
  }

  // -- controls --------------------------------------------------------------------------------
  const actions = {
    prev: () => go(step - 1),
    next: () => go(step + 1),
    play: () => (timer ? stop() : play()),
    lang: () => setLanguage(lang === "en" ? "zh" : "en"),
    zoom: (button) => {
      zoom(button.dataset.zoom);
      keepInView();
    },
  };
  for (const button of document.querySelectorAll("button[data-action]")) {
    button.addEventListener("click", () => {
      if (button.dataset.action !== "play") stop(); // a manual step pauses playing
      actions[button.dataset.action](button);
    });
  }
  $("#step-slider").addEventListener("input", (event) => {
    stop();
    go(Number(event.target.value));
  });
  $('[data-action="speed"]').addEventListener("change", (event) => {
    delay = Number(event.target.value);
    if (timer) {
      stop();
      play();
    }
  });
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    // the slider and the speed menu handle their own keys; space on a button presses it
    if (target.matches && target.matches("input, select, textarea")) return;
    if (event.key === " " && target.matches && target.matches("button")) return;
    const keys = {
      ArrowRight: actions.next,
      ArrowLeft: actions.prev,
      " ": actions.play,
      Home: () => go(0),
      End: () => go(last),
    };
    if (!keys[event.key]) return;
    event.preventDefault();
    if (event.key !== " ") stop();
    keys[event.key]();
  });
  window.addEventListener("resize", () => zoom(zoomed));

  // -- start: step 0, nothing run yet ----------------------------------------------------------
  grads.forEach((_, i) => showGrad(i));
  setLanguage(lang);
  if (natural && natural.width) {
    // the whole graph if it can be read so; a tall one fills the width and scrolls down; a
    // wide one starts around the step (zoomed to the node being run and its edges)
    zoom(scaleFor("whole") >= 0.6 ? "whole" : scaleFor("width") >= 0.5 ? "width" : "step");
  }
  go(0);
  document.body.dataset.ready = "true";
})();
"""
