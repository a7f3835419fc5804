"""The backward player in headless Chromium (the `browser` fixture): stepping highlights each
step's node and edges and shows its gradients, both languages, playing, a few hundred nodes,
Jupyter's iframe, and a screenshot that is not blank."""

from __future__ import annotations

import re
import struct
import zlib

import numpy as np
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

import minigrad
from minigrad import nn, viz
from minigrad.printing import tensor_repr


def classic():
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True, name="x")
    y = minigrad.tensor([4.0, 5.0, 6.0], requires_grad=True, name="y")
    return minigrad.trace(lambda: (x * y).sum() * 3)


def mlp():
    minigrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    x = minigrad.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3), name="x")
    target = minigrad.tensor([[1.0, 0.0], [0.0, 1.0]])
    return minigrad.trace(lambda: nn.functional.mse_loss(model(x), target), params=model)


def chain(layers: int):
    """4 nodes a layer (mul, add, tanh and the two leaves' AccumulateGrad, shared x aside)."""
    x = minigrad.tensor(np.linspace(-1, 1, 4, dtype=np.float32), requires_grad=True, name="x")
    h = x
    for i in range(layers):
        w = minigrad.tensor(np.float32(0.9), requires_grad=True, name=f"w{i}")
        b = minigrad.tensor(np.float32(0.1), requires_grad=True, name=f"b{i}")
        h = (h * w + b).tanh()
    return minigrad.trace(h.sum())


# -- driving the page ---------------------------------------------------------------------------
def open_player(browser, path, trace=None, **options):
    if trace is not None:
        trace.to_html(path, **options)
    browser.get(path.as_uri())
    WebDriverWait(browser, 20).until(
        lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))


def press(browser, action: str) -> None:
    browser.find_element(By.CSS_SELECTOR, f'button[data-action="{action}"]').click()


def step_of(browser) -> int:
    return int(browser.execute_script("return document.body.dataset.step"))


def titles(browser, selector: str) -> list[str]:
    return browser.execute_script(
        "return [...document.querySelectorAll(arguments[0])]"
        ".map(g => g.querySelector(':scope > title').textContent)", selector)


def text_of(browser, selector: str) -> str:
    """The element's text with whitespace runs made one space (tensors print on many lines)."""
    text = browser.execute_script("return document.querySelector(arguments[0]).textContent",
                                  selector)
    return squeeze(text)


def squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def shown(a) -> str:
    """A gradient as the panel shows it: as PyTorch prints it when small, else its shape."""
    a = np.asarray(a)
    return squeeze(tensor_repr(a, [])) if a.size <= 20 else str(tuple(a.shape))


def check_step(browser, trace, k: int) -> None:
    """At step k: the node run has class `current`, its gradient edges are marked, the panel
    shows every gradient it got and sent, and the leaves' table every .grad so far."""
    assert step_of(browser) == k
    s = trace.steps[k - 1]
    node = trace.node(s.node)
    assert titles(browser, "g.node.current") == [s.node], (k, node.name)
    sent = {f"{src}->{s.node}" for i, src in enumerate(node.inputs)
            if src is not None and s.grad_inputs[i] is not None}
    assert set(titles(browser, "g.edge.sent")) == sent
    panel = text_of(browser, "#step-panel")
    assert node.name in panel
    for g in [*s.grad_outputs, *s.grad_inputs, *(a.after for a in s.accumulations)]:
        if g is not None:
            assert shown(g) in panel, (k, node.name, shown(g))
    grads = {}
    for earlier in trace.steps[:k]:
        for a in earlier.accumulations:
            grads[a.leaf] = a.after
    rows = leaf_rows(browser)
    for leaf in trace.leaves:
        expected = shown(grads[leaf.label]) if leaf.label in grads else "None"
        assert rows[f"{leaf.label}.grad {tuple(leaf.shape)}"] == expected, (k, leaf.label)


def leaf_rows(browser) -> dict[str, str]:
    """The leaves' table: "x.grad (3,)" -> the .grad shown."""
    rows = browser.execute_script(
        "return [...document.querySelectorAll('#leaf-grads tr')]"
        ".map(tr => [...tr.cells].map(td => td.textContent))")
    return {squeeze(name): squeeze(value) for name, value in rows}


def walk(browser, trace) -> None:
    """From step 0, press "next" through every step, checking each."""
    assert step_of(browser) == 0 and titles(browser, "g.node.current") == []
    assert "Nothing has run yet" in text_of(browser, "#step-panel")
    for k in range(1, len(trace.steps) + 1):
        press(browser, "next")
        check_step(browser, trace, k)


# -- a screenshot, read without Pillow ----------------------------------------------------------
def png_pixels(data: bytes) -> np.ndarray:
    """The RGB pixels (height x width x 3) of an 8-bit, non-interlaced RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, idat = 8, b""
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    assert depth == 8 and interlace == 0 and color in (2, 6), (depth, color, interlace)
    bpp = 3 if color == 2 else 4
    stride = width * bpp
    raw = zlib.decompress(idat)
    rows = np.zeros((height, stride), dtype=np.int64)
    above = np.zeros(stride, dtype=np.int64)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int64)
        if kind == 1:  # Sub: add the pixel to the left (a running sum per channel)
            line = np.cumsum(line.reshape(width, bpp), axis=0).reshape(-1) % 256
        elif kind == 2:  # Up
            line = (line + above) % 256
        elif kind in (3, 4):  # Average, Paeth: pixel by pixel
            out = line.tolist()
            up = above.tolist()
            for i in range(stride):
                a = out[i - bpp] if i >= bpp else 0
                b = up[i]
                if kind == 3:
                    out[i] = (out[i] + (a + b) // 2) % 256
                    continue
                c = up[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                out[i] = (out[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) % 256
            line = np.array(out, dtype=np.int64)
        rows[y] = line
        above = line
    return rows.reshape(height, width, bpp)[:, :, :3].astype(np.uint8)


def check_screenshot(browser, path) -> None:
    """Saved, not blank (many colours, no colour covers nearly everything), and showing the
    running node's amber highlight."""
    assert browser.save_screenshot(str(path))
    data = path.read_bytes()
    assert len(data) > 20_000
    pixels = png_pixels(data)
    height, width, _ = pixels.shape
    assert width >= 800 and height >= 500
    packed = (pixels[:, :, 0].astype(np.int64) << 16) | (pixels[:, :, 1].astype(np.int64) << 8) \
        | pixels[:, :, 2]
    colours, counts = np.unique(packed, return_counts=True)
    assert len(colours) > 50 and counts.max() < 0.8 * packed.size
    amber = (np.abs(pixels.astype(np.int64) - [255, 201, 77]).max(axis=2) <= 12).sum()
    assert amber > 400, "the node being run is highlighted in amber"


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


def test_without_a_drawing_the_steps_still_work(browser, tmp_path, monkeypatch):
    def no_dot(graph, fmt="svg"):
        raise viz.GraphvizNotFound(viz.INSTALL_HINT)

    monkeypatch.setattr(viz, "pipe", no_dot)
    t = classic()
    open_player(browser, tmp_path / "bare.html", t)
    assert "apt-get install graphviz" in text_of(browser, "#graph")
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
