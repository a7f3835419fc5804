"""Driving the backward player in headless Chromium, for the browser tests: open a page, press
its buttons, read its state, check a step's highlights, panel and leaves' table, and check a
screenshot (read without Pillow)."""

from __future__ import annotations

import re
import struct
import time
import zlib

import numpy as np
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from minigrad.surface.printing import tensor_repr


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


def check_screenshot(browser, path, tries: int = 10) -> None:
    """Saved, not blank (many colours, no colour covers nearly everything), and showing the
    running node's amber highlight. The view zooms to the step smoothly, so the highlight may
    take a moment to come into the picture: up to `tries` screenshots, 0.3 s apart."""
    for _ in range(tries):
        assert browser.save_screenshot(str(path))
        data = path.read_bytes()
        assert len(data) > 20_000
        pixels = png_pixels(data)
        height, width, _ = pixels.shape
        assert width >= 800 and height >= 500
        packed = (pixels[:, :, 0].astype(np.int64) << 16) | \
            (pixels[:, :, 1].astype(np.int64) << 8) | pixels[:, :, 2]
        colours, counts = np.unique(packed, return_counts=True)
        assert len(colours) > 50 and counts.max() < 0.8 * packed.size
        amber = (np.abs(pixels.astype(np.int64) - [255, 201, 77]).max(axis=2) <= 12).sum()
        if amber > 400:
            return
        time.sleep(0.3)
    raise AssertionError(f"the node being run is highlighted in amber ({amber} amber pixels "
                         f"after {tries} screenshots)")


