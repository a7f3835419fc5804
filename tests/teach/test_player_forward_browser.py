"""The forward-mode player in headless Chromium: a trace of forward mode alone opens a page
that steps through its ops in the order they ran, each op highlighted with the tangents
coming in along its input edges and its own going out, the tangents on the drawing, the
narration of each step (en, then zh), and the inputs' tangents in the table."""

from __future__ import annotations

from player_driving import (
    check_screenshot,
    leaf_rows,
    open_player,
    press,
    shown,
    step_of,
    text_of,
    titles,
)
from selenium.webdriver.common.by import By

import minigrad
import minigrad.autograd.forward_ad as fwAD


def dual_trace() -> minigrad.Trace:
    x = minigrad.tensor([1.0, 2.0, 3.0])
    y = minigrad.tensor([4.0, 5.0, 6.0])
    with minigrad.trace() as t, fwAD.dual_level():
        dx = fwAD.make_dual(x, minigrad.tensor([1.0, 0.0, 0.0]))
        out = ((dx * y).sin() * dx).sum()
        assert fwAD.unpack_dual(out).tangent is not None
    return t


def test_the_forward_player_steps_through_the_tangents(browser, dot_bin, tmp_path):
    t = dual_trace()
    view = t.forward_view()
    open_player(browser, tmp_path / "forward.html", t)
    assert "forward-mode player" in browser.title
    assert step_of(browser) == 0 and titles(browser, "g.node.current") == []
    assert "Only the inputs have tangents" in text_of(browser, "#step-panel")
    assert leaf_rows(browser) == {"dx' (3,)": "tensor([1., 0., 0.])"}
    drawn = browser.execute_script(
        "return [...document.querySelectorAll('svg text')].map(t => t.textContent)")
    assert "tangent [1., 0., 0.]" in drawn  # the input's tangent, on its box and its edge
    users: dict[str, list[str]] = {}
    for n in view.nodes:
        for src in n.inputs:
            if src is not None:
                users.setdefault(src, []).append(n.id)
    for k, s in enumerate(view.steps, start=1):
        press(browser, "next")
        assert step_of(browser) == k
        node = view.node(s.node)
        assert titles(browser, "g.node.current") == [s.node]
        coming_in = {f"{src}->{s.node}" for src, g in zip(node.inputs, s.grad_inputs)
                     if src is not None and g is not None}
        assert set(titles(browser, "g.edge.sent")) == coming_in, k
        going_out = {f"{s.node}->{u}" for u in users.get(s.node, [])}
        if k == len(view.steps):
            going_out.add(f"{s.node}->{s.node}_out")
        assert set(titles(browser, "g.edge.incoming")) == going_out, k
        panel = text_of(browser, "#step-panel")
        assert node.name in panel and "tangent" in panel and "rule" in panel
        assert shown(s.grad_outputs[0]) in panel, (k, shown(s.grad_outputs[0]))
    assert browser.find_element(By.CSS_SELECTOR, '[data-action="next"]').get_attribute(
        "disabled") is not None
    panel = text_of(browser, "#step-panel")
    assert "Forward pass finished" in panel and "Tangent out: out' = " in panel
    check_screenshot(browser, tmp_path / "forward.png")
    press(browser, "lang")  # the same page in Chinese: the narration, the table, the drawing
    panel = text_of(browser, "#step-panel")
    assert f"第 {len(view.steps)} 步" in panel and "切向量" in panel and "法则" in panel
    assert "输入及其切向量" in text_of(browser, "#leaves")
    drawn = browser.execute_script(
        "return [...document.querySelectorAll('svg text')].map(t => t.textContent)")
    assert "切向量 [1., 0., 0.]" in drawn
    press(browser, "prev")
    assert step_of(browser) == len(view.steps) - 1
