"""The backward player in headless Chromium (the `browser` fixture): stepping highlights each
step's node and edges and shows its gradients, both languages, playing, a few hundred nodes,
the player's own drawing without `dot`, Jupyter's iframe, and a screenshot that is not blank.
(Big graphs, zoom, long names and the Chinese page: test_player_browser_layout.py.)"""

from __future__ import annotations

from player_driving import (
    check_screenshot,
    check_step,
    leaf_rows,
    open_player,
    press,
    step_of,
    text_of,
    titles,
    walk,
)
from player_traces import chain, classic, mlp
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from minigrad.teach import player_drawing


# -- the tests ----------------------------------------------------------------------------------
def test_classic_steps_highlight_each_node_and_show_its_gradients(browser, dot_bin, tmp_path):
    t = classic()
    open_player(browser, tmp_path / "classic.html", t)
    walk(browser, t)
    assert browser.find_element(By.CSS_SELECTOR, '[data-action="next"]').get_attribute(
        "disabled") is not None
    assert "Backward finished" in text_of(browser, "#step-panel")
    # back with "prev", the arrow keys, Home and End
    press(browser, "prev")
    check_step(browser, t, 4)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_LEFT)
    check_step(browser, t, 3)
    body.send_keys(Keys.HOME)
    assert step_of(browser) == 0 and titles(browser, "g.node.current") == []
    assert set(leaf_rows(browser).values()) == {"None"}
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_RIGHT)
    check_step(browser, t, 3)
    # the gradients on the drawing appear with the step that computes them
    hidden = browser.execute_script(
        "return [...document.querySelectorAll('text.grad-pending')].map(t => t.textContent)")
    assert sorted(hidden) == ["grad [12., 15., 18.]", "grad [3., 6., 9.]"]  # the leaves' boxes
    assert set(titles(browser, "g.edge.incoming")) == {f"{t.steps[2].node}->{t.steps[1].node}"}
    check_screenshot(browser, tmp_path / "classic.png")


def test_switching_language_shows_chinese(browser, dot_bin, tmp_path):
    t = classic()
    open_player(browser, tmp_path / "classic.html", t)
    press(browser, "next")
    press(browser, "lang")
    assert browser.execute_script("return document.documentElement.lang") == "zh-CN"
    panel = text_of(browser, "#step-panel")
    assert "第 1 步" in panel and "传入梯度" in panel and "求导法则" in panel
    assert "tensor(3.)" in panel  # the same numbers
    assert text_of(browser, 'button[data-action="lang"]') == "English"
    assert text_of(browser, 'button[data-action="next"]') == "下一步 ▶"
    assert "叶子节点" in text_of(browser, "#leaves")
    press(browser, "next")
    check_step(browser, t, 2)  # stepping still works in Chinese
    check_screenshot(browser, tmp_path / "classic-zh.png")
    press(browser, "lang")
    assert "incoming" in text_of(browser, "#step-panel")


def test_mlp_steps_highlight_each_node_and_show_its_gradients(browser, dot_bin, tmp_path):
    t = mlp()
    open_player(browser, tmp_path / "mlp.html", t)
    walk(browser, t)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.HOME)
    for _ in range(5):  # 2.weight's .grad is accumulated at step 5
        press(browser, "next")
    check_step(browser, t, 5)
    assert "2.weight.grad" in text_of(browser, "#leaf-grads tr.changed")
    check_screenshot(browser, tmp_path / "mlp.png")


def test_slider_play_and_pause(browser, dot_bin, tmp_path):
    t = mlp()
    open_player(browser, tmp_path / "mlp.html", t)
    browser.execute_script("""
        const slider = document.getElementById('step-slider');
        slider.value = 7;
        slider.dispatchEvent(new Event('input'));""")
    check_step(browser, t, 7)
    browser.execute_script("""
        const speed = document.querySelector('[data-action="speed"]');
        speed.value = '200';
        speed.dispatchEvent(new Event('change'));""")
    press(browser, "play")
    assert text_of(browser, 'button[data-action="play"]') == "❚❚ Pause"
    WebDriverWait(browser, 20).until(lambda d: step_of(d) == len(t.steps))
    check_step(browser, t, len(t.steps))
    assert text_of(browser, 'button[data-action="play"]') == "▶ Play"  # stopped at the end
    press(browser, "play")  # from the end, play starts over
    WebDriverWait(browser, 20).until(lambda d: 0 < step_of(d) < len(t.steps))
    press(browser, "play")
    paused = step_of(browser)
    browser.execute_script("return new Promise(done => setTimeout(done, 600))")
    assert step_of(browser) == paused


def test_a_few_hundred_nodes_step_and_jump(browser, dot_bin, tmp_path):
    t = chain(60)
    assert len(t.nodes) > 300
    open_player(browser, tmp_path / "chain.html", t)
    n = len(t.steps)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.END)
    check_step(browser, t, n)
    assert browser.execute_script("return document.querySelectorAll('.grad-pending').length") == 0
    assert len(titles(browser, "g.node.done")) == len({s.node for s in t.steps})
    body.send_keys(Keys.HOME)
    assert step_of(browser) == 0 and titles(browser, "g.node.done") == []
    for k in range(1, 8):
        body.send_keys(Keys.ARROW_RIGHT)
        check_step(browser, t, k)
    # clicking a node jumps to the step that runs it
    target = t.steps[150]
    browser.execute_script(
        "[...document.querySelectorAll('g.node')].find(g => g.querySelector('title')"
        ".textContent === arguments[0]).dispatchEvent(new MouseEvent('click'))", target.node)
    check_step(browser, t, 151)
    check_screenshot(browser, tmp_path / "chain.png")


def test_without_dot_the_players_own_drawing_steps_the_same(browser, tmp_path, monkeypatch):
    monkeypatch.setattr(player_drawing, "find_dot", lambda: None)
    t = mlp()
    open_player(browser, tmp_path / "own.html", t)
    assert browser.execute_script("return document.querySelector('#graph svg.layered') !== null")
    assert "apt-get install graphviz" in text_of(browser, "#layout-note")
    walk(browser, t)  # the same highlights, panel and leaves' table as on graphviz's drawing
    assert set(titles(browser, "g.node.done")) == {s.node for s in t.steps}


def test_without_a_drawing_the_steps_still_work(browser, tmp_path):
    t = classic()
    open_player(browser, tmp_path / "bare.html", t, svg="")
    assert "The drawing was left out" in text_of(browser, "#graph")
    for k in range(1, 4):
        press(browser, "next")
        assert step_of(browser) == k
        assert t.node(t.steps[k - 1].node).name in text_of(browser, "#step-panel")
    assert "tensor([12., 15., 18.])" in text_of(browser, "#step-panel")


def test_jupyter_shows_the_player_in_an_iframe(browser, dot_bin, tmp_path):
    t = classic()
    notebook = tmp_path / "notebook.html"
    notebook.write_text(f"<!DOCTYPE html><html><body>{t._repr_html_()}</body></html>",
                        encoding="utf-8")
    browser.get(notebook.as_uri())
    browser.switch_to.frame(browser.find_element(By.TAG_NAME, "iframe"))
    WebDriverWait(browser, 20).until(
        lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))
    press(browser, "next")
    check_step(browser, t, 1)
