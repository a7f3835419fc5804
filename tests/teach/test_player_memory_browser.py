"""The player's memory bar in headless Chromium (the `browser` fixture): at each step it shows
what the graph still holds and the gradients waiting, as `Trace.memory` counts them, and it
follows the page's language."""

from __future__ import annotations

import pytest
from player_driving import open_player, press, step_of, text_of
from player_traces import mlp
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from minigrad.teach.memory import size_text


def widths(browser) -> tuple[float, float]:
    """The bar's two parts, in % of its width: what the graph holds, the gradients waiting."""
    return tuple(float(browser.execute_script(
        f"return document.querySelector('#memory-bar .{part}').style.width").rstrip("%"))
        for part in ("held", "grads"))


def test_the_memory_bar_follows_the_steps(browser, tmp_path):
    t = mlp()
    report = t.memory
    open_player(browser, tmp_path / "mlp.html", t, svg="")
    held, grads = widths(browser)
    assert held == pytest.approx(100 * report.total / report.peak, abs=0.01)
    assert text_of(browser, "#memory-text").startswith(f"graph {size_text(report.total)} · ")
    for k, step in enumerate(report.steps, start=1):
        press(browser, "next")
        assert step_of(browser) == k
        held, grads = widths(browser)
        assert held == pytest.approx(100 * step.held / report.peak, abs=0.01), k
        assert grads == pytest.approx(100 * step.gradients / report.peak, abs=0.01), k
    assert held == 0  # minigrad frees every saved tensor when the pass ends
    assert "freed" in text_of(browser, "#memory-text")
    press(browser, "lang")
    assert text_of(browser, "#memory-title") == "内存"
    assert text_of(browser, "#memory-text").startswith("计算图 0 B · 梯度 ")
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.HOME)
    assert widths(browser)[0] == pytest.approx(100 * report.total / report.peak, abs=0.01)
