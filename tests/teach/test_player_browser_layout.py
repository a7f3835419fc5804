"""The backward player in headless Chromium on what used to go wrong: a thousand nodes (its own
layout, stepped fifty times), a tall graph's zoom, parameter names longer than the leaves'
table is wide, and the Chinese page (every word of it, the drawing's too)."""

from __future__ import annotations

import re
import time

from player_driving import check_screenshot, check_step, open_player, press, step_of, text_of
from player_traces import chain, classic, long_names, mlp
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import minigrad
from minigrad import nn
from minigrad.teach import player, player_drawing

CJK = re.compile(r"[\u4e00-\u9fff]")

# Step through `count` steps with the Next button, inside the page: per step, the time the
# click took (the script's work) and the time until the next frame was drawn, what is
# highlighted, the panel's title and first line, and whether the running node (and the edges
# its gradients come in and go out along) are in sight.
STEP_THROUGH = """
const [count, done] = arguments;
const next = document.querySelector('button[data-action="next"]');
const graph = document.getElementById("graph");
const seen = [];
(async () => {
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    next.click();
    const script = performance.now() - start;
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const current = [...document.querySelectorAll("g.node.current")];
    const box = current.length ? current[0].getBoundingClientRect() : null;
    const room = graph.getBoundingClientRect();
    const inside = (r) => r.top >= room.top && r.bottom <= room.bottom && r.left >= room.left
      && r.right <= room.right;
    const edges = [...document.querySelectorAll("g.edge.sent, g.edge.incoming")];
    seen.push({
      script: script, frame: performance.now() - start, step: document.body.dataset.step,
      current: current.map((g) => g.querySelector(":scope > title").textContent),
      title: document.getElementById("step-title").textContent,
      head: document.querySelector("#step-text strong").textContent,
      inSight: box !== null && inside(box),
      edgesInSight: edges.every((g) => inside(g.getBoundingClientRect())),
    });
  }
  done(seen);
})();
"""


def test_a_thousand_nodes_open_and_step_smoothly(browser, tmp_path):
    t = chain(250)
    assert len(t.nodes) > 1000
    path = tmp_path / "thousand.html"
    start = time.perf_counter()
    t.to_html(path)
    made = time.perf_counter() - start
    start = time.perf_counter()
    open_player(browser, path)
    opened = time.perf_counter() - start
    assert browser.execute_script("return document.querySelector('#graph svg.layered') !== null")
    assert f"{len(t.nodes)} nodes" in text_of(browser, "#layout-note")
    browser.set_script_timeout(120)
    seen = browser.execute_async_script(STEP_THROUGH, 50)
    n = len(t.steps)
    for k, at in enumerate(seen, start=1):
        node = t.node(t.steps[k - 1].node)
        assert at["step"] == str(k) and at["current"] == [node.id], (k, at)
        assert at["title"] == f"Step {k} of {n}" and at["head"].startswith(node.name), (k, at)
        assert at["inSight"], (k, "the running node is scrolled into the graph's view")
    check_step(browser, t, 50)  # the leaves' table too
    script = sorted(at["script"] for at in seen)
    frame = sorted(at["frame"] for at in seen)
    print(f"\n{len(t.nodes)} nodes: to_html {made:.2f} s, page ready {opened:.2f} s; per step "
          f"(median / max of 50): script {script[25]:.1f} / {script[-1]:.1f} ms, next frame "
          f"{frame[25]:.1f} / {frame[-1]:.1f} ms")
    check_screenshot(browser, tmp_path / "thousand.png")


def test_a_tall_graph_fills_the_width_and_scrolls_down(browser, tmp_path):
    t = chain(60)  # over 300 nodes: the player's own layout, one tall column
    open_player(browser, tmp_path / "tall.html", t)
    size = """const g = document.getElementById('graph'), s = g.querySelector('svg');
        return [s.getBoundingClientRect().width, s.getBoundingClientRect().height,
                g.clientWidth, g.clientHeight, g.scrollWidth, g.scrollHeight];"""
    pressed = "return document.querySelector('[aria-pressed=\"true\"]').dataset.zoom"
    assert browser.execute_script(pressed) == "width"
    width, height, room_w, room_h, scroll_w, scroll_h = browser.execute_script(size)
    assert width <= room_w and scroll_w <= room_w  # no sideways scrolling
    assert height > 3 * room_h and scroll_h > 3 * room_h  # it scrolls down instead
    browser.find_element(By.CSS_SELECTOR, '[data-zoom="whole"]').click()
    assert browser.execute_script(pressed) == "whole"
    width, height, room_w, room_h, _, _ = browser.execute_script(size)
    assert height <= room_h + 1 and width <= room_w
    browser.find_element(By.CSS_SELECTOR, '[data-zoom="actual"]').click()
    natural = browser.execute_script(
        "return parseFloat(document.querySelector('#graph svg').getAttribute('width')) * 4 / 3")
    assert abs(browser.execute_script(size)[0] - natural) < 1


def test_a_wide_deep_model_drawn_by_graphviz_starts_zoomed_around_the_step(browser, dot_bin,
                                                                          tmp_path):
    minigrad.manual_seed(0)
    model = nn.Sequential(*[m for _ in range(12) for m in (nn.Linear(4, 4), nn.Tanh())])
    x = minigrad.ones(2, 4)
    t = minigrad.trace(lambda: model(x).pow(2).mean(), params=model)
    assert len(t.nodes) <= player_drawing.GRAPHVIZ_MAX_NODES
    open_player(browser, tmp_path / "deep.html", t)
    assert text_of(browser, "#layout-note") == "Drawn by graphviz (dot)."
    # graphviz draws it some 4,000 px wide: fitting its width would make it a sliver, so it
    # starts zoomed around the step: the node being run and its edges fill the box
    assert browser.execute_script(
        "return document.querySelector('[aria-pressed=\"true\"]').dataset.zoom") == "step"
    browser.set_script_timeout(60)
    seen = browser.execute_async_script(STEP_THROUGH, 20)
    assert all(at["inSight"] and at["edgesInSight"] for at in seen), \
        [at["step"] for at in seen if not (at["inSight"] and at["edgesInSight"])]
    scale = browser.execute_script(
        "const s = document.querySelector('#graph svg');"
        "return s.getBoundingClientRect().width / (parseFloat(s.getAttribute('width')) * 4 / 3)")
    assert 0.2 <= scale <= 1
    browser.find_element(By.CSS_SELECTOR, '[data-zoom="actual"]').click()
    seen = browser.execute_async_script(STEP_THROUGH, 3)  # at natural size it still follows
    assert all(at["inSight"] for at in seen)
    browser.find_element(By.CSS_SELECTOR, '[data-zoom="width"]').click()
    fits = browser.execute_script(
        "const g = document.getElementById('graph'); return g.scrollWidth <= g.clientWidth")
    assert fits


def test_long_parameter_names_wrap_and_show_in_full(browser, dot_bin, tmp_path):
    t = long_names()
    labels = [leaf.label for leaf in t.leaves]
    assert max(map(len, labels)) > 70
    for width in (1280, 1000):
        browser.set_window_size(width, 900)
        open_player(browser, tmp_path / "names.html", t)
        press(browser, "next")
        box = browser.execute_script("""
            const box = document.querySelector('#leaves .table-box');
            return [box.scrollWidth, box.clientWidth,
                    document.documentElement.scrollWidth, document.documentElement.clientWidth];
            """)
        assert box[0] <= box[1] and box[2] <= box[3], (width, box)
        names = browser.execute_script("""
            return [...document.querySelectorAll('#leaf-grads td.leaf-name')].map(td => {
              const code = td.querySelector('code').getBoundingClientRect();
              const cell = td.getBoundingClientRect();
              return [td.querySelector('code').textContent, td.title,
                      code.left >= cell.left - 0.5 && code.right <= cell.right + 0.5,
                      td.scrollWidth <= td.clientWidth];
            });""")
        assert [name for name, *_ in names] == [f"{label}.grad" for label in labels]
        for name, tooltip, inside, fits in names:
            assert tooltip.startswith(name) and inside and fits, (width, name)


def zh_words(browser) -> list[str]:
    """Every word of the page the player put there (not the narration or the code)."""
    return browser.execute_script(
        "return [...document.querySelectorAll('[data-ui]')].map(e => e.textContent)"
        ".concat([...document.querySelectorAll('[data-ui-label]')]"
        ".map(e => e.getAttribute('aria-label')))")


def test_the_chinese_page_is_chinese_throughout(browser, dot_bin, tmp_path):
    t = classic()
    open_player(browser, tmp_path / "zh.html", t, lang="zh")
    assert browser.title == "minigrad · 反向传播逐步演示"
    arrows_only = {player.UI["zh"][key] for key in ("prev", "next", "play", "pause")}
    for words in zh_words(browser):
        assert CJK.search(words) or words in arrows_only or words == "English", words
    drawn = "return [...document.querySelectorAll('#graph text')].map(t => t.textContent)"
    texts = browser.execute_script(drawn)
    assert not [text for text in texts if re.match(r"steps? \d|grad |.* norm ", text)]
    assert {f"第 {k} 步" for k in range(1, 6)} <= set(texts)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    assert "梯度 [12., 15., 18.]" in browser.execute_script(drawn)
    assert "第 5 步（共 5 步）" in text_of(browser, "#step-panel")
    check_screenshot(browser, tmp_path / "zh.png")
    press(browser, "lang")  # and back: the drawing's words too
    texts = browser.execute_script(drawn)
    assert "step 1" in texts and "grad [12., 15., 18.]" in texts and step_of(browser) == 5


def test_the_chinese_page_of_the_players_own_drawing(browser, tmp_path, monkeypatch):
    monkeypatch.setattr(player_drawing, "find_dot", lambda: None)
    t = mlp()
    open_player(browser, tmp_path / "zh-own.html", t, lang="zh")
    note = text_of(browser, "#layout-note")
    assert "minigrad 自带的分层布局" in note and "没有找到" in note
    texts = browser.execute_script(
        "return [...document.querySelectorAll('#graph text')].map(t => t.textContent)")
    assert "第 1 步" in texts and not [text for text in texts if text.startswith("step")]
    press(browser, "next")
    assert "第 1 步" in text_of(browser, "#step-panel")
