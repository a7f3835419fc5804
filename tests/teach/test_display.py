"""What the teaching tools return shows itself in a notebook and stays what it was: render()'s
path shows its picture, to_html()'s page shows the player (the string still there), a Trace
shows its drawing and player. Checked through IPython's display formatter, the code Jupyter
runs on a cell's last expression (tests/teach/test_notebooks.py runs the lessons in a kernel).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from player_traces import classic

from minigrad.teach.display import Drawing, PlayerPage

pytestmark = pytest.mark.jupyter


def formats(obj) -> dict:
    from IPython.core.formatters import DisplayFormatter

    data, _ = DisplayFormatter().format(obj)
    return data


def test_render_returns_a_path_that_shows_its_picture(dot_bin, tmp_path: Path) -> None:
    t = classic()
    svg = t.render(tmp_path / "graph.svg")
    assert isinstance(svg, Path) and svg == tmp_path / "graph.svg"  # still a Path
    assert isinstance(svg, Drawing) and svg.read_text(encoding="utf-8").startswith("<?xml")
    assert formats(svg)["image/svg+xml"] == svg.read_text(encoding="utf-8")
    png = t.render(tmp_path / "graph.png")
    assert formats(png)["image/png"] == png.read_bytes()
    assert png.read_bytes().startswith(b"\x89PNG")
    dot = t.render(tmp_path / "graph.dot")  # DOT text is no picture: the path as text
    assert set(formats(dot)) == {"text/plain"} and "graph.dot" in formats(dot)["text/plain"]
    assert set(formats(Drawing(tmp_path / "gone.svg"))) == {"text/plain"}  # no file, no picture


def test_to_html_returns_the_page_as_a_string_that_shows_the_player(tmp_path: Path) -> None:
    t = classic()
    page = t.to_html(tmp_path / "player.html")
    assert isinstance(page, str) and isinstance(page, PlayerPage)
    assert page == (tmp_path / "player.html").read_text(encoding="utf-8") == page.html
    assert type(page.html) is str and page.startswith("<!DOCTYPE html>")
    data = formats(page)
    assert set(data) == {"text/plain", "text/html"}
    assert len(data["text/plain"]) < 200 and "backward player" in data["text/plain"]
    frame = data["text/html"]
    assert frame.startswith("<iframe srcdoc=") and 'sandbox="allow-scripts"' in frame
    assert "&lt;!DOCTYPE html&gt;" in frame and "<!DOCTYPE" not in frame  # escaped inside
    assert frame == t._repr_html_()  # the same player as the Trace's own


def test_a_trace_shows_its_drawing_and_its_player(dot_bin) -> None:
    data = formats(classic())
    assert {"text/html", "image/svg+xml"} <= set(data)
    assert data["text/plain"].startswith("<Trace (minigrad): 3 operations")
