"""The player's memory bar: its script and style, inlined into the page by `minigrad.teach.player`
after the player's own (`player_memory.py` makes its data, the player data's `memory`).

The bar shows, at the step the player is at, what the graph still holds for backward (the
saved tensors) and the gradients waiting in their buffers, against the largest total of the
pass (the peak). It follows the player through the page's own attributes: `body[data-step]`
(the step) and `html[lang]` (the language), so the player's script knows nothing of it.
Hooks for tests: #memory-bar's children .held and .grads (their widths in %), #memory-text.
"""

MEMORY_SCRIPT = r"""
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("player-data").textContent).memory;
  const held = document.querySelector("#memory-bar .held");
  const grads = document.querySelector("#memory-bar .grads");
  const text = document.getElementById("memory-text");
  const title = document.getElementById("memory-title");
  const percent = (n) => (data.max ? (100 * n) / data.max : 0).toFixed(2) + "%";
  function show() {
    const lang = document.documentElement.lang === "zh-CN" ? "zh" : "en";
    const k = Number(document.body.dataset.step || 0);
    const at = data.at[Math.min(k, data.at.length - 1)];
    held.style.width = percent(at.held);
    grads.style.width = percent(at.grads);
    document.getElementById("memory").dataset.held = String(at.held);
    title.textContent = data.ui[lang].title;
    text.textContent = at.text[lang];
  }
  new MutationObserver(show).observe(document.body, { attributes: true,
    attributeFilter: ["data-step"] });
  new MutationObserver(show).observe(document.documentElement, { attributes: true,
    attributeFilter: ["lang"] });
  show();
})();
"""

MEMORY_STYLE = r"""
#memory {
  padding: 10px 14px;
  background: var(--card);
  border: 1px solid var(--line);
  border-radius: 8px;
}
#memory h2 { margin: 0 0 6px; font-size: 14px; }
#memory-bar {
  display: flex;
  height: 14px;
  overflow: hidden;
  background: var(--page);
  border: 1px solid var(--line);
  border-radius: 4px;
}
#memory-bar .held { background: #7b61ff; transition: width 0.15s; }
#memory-bar .grads { background: #f4a261; transition: width 0.15s; }
#memory-text { margin: 6px 0 0; color: var(--muted); font-family: var(--mono); font-size: 12px; }
"""
