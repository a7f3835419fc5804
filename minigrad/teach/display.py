"""What the teaching tools hand back shows itself in Jupyter, and stays what it was.

- `Drawing`: the path `render(...)` wrote (a `pathlib.Path`, so `open`, `.read_text()` and
  `==` work as before); left at the end of a notebook cell it shows the picture (SVG or PNG)
  instead of `PosixPath('graph.svg')`.
- `PlayerPage`: the HTML `to_html()` returns (a `str`, so it can be written, searched and
  sliced as before); in a notebook it shows the player in a sandboxed iframe instead of
  40,000 characters of HTML, and its `repr` says what it is.

They follow IPython's display protocol (`_repr_svg_`, `_repr_png_`, `_repr_html_`): plain
methods, so minigrad imports nothing from Jupyter.
"""

from __future__ import annotations

import html
from pathlib import Path

__all__ = ["Drawing", "PlayerPage", "iframe"]


class Drawing(type(Path())):  # type: ignore[misc]  (PosixPath or WindowsPath, as Path() is)
    """The file a drawing was written to; Jupyter shows the picture in it."""

    def _repr_svg_(self) -> str | None:
        return self.read_text(encoding="utf-8") if self._is(".svg") else None

    def _repr_png_(self) -> bytes | None:
        return self.read_bytes() if self._is(".png") else None

    def _is(self, suffix: str) -> bool:
        return self.suffix.lower() == suffix and self.is_file()


class PlayerPage(str):
    """The backward player's whole HTML page; Jupyter shows the player itself."""

    __slots__ = ()

    @property
    def html(self) -> str:
        """The page as a plain string."""
        return str.__str__(self)

    def _repr_html_(self) -> str:
        return iframe(self.html)

    def __repr__(self) -> str:
        return (f"<minigrad backward player: an HTML page of {len(self):,} characters; "
                "str(page) or page.html is the text, to_html(path) writes it>")


def iframe(page: str, height: int = 760) -> str:
    """`page` inside an iframe: its own document, so its ids, styles and keys stay its own,
    and sandboxed (scripts run, nothing else: no forms, no top navigation, no same origin)."""
    return (f'<iframe srcdoc="{html.escape(page, quote=True)}" sandbox="allow-scripts" '
            f'style="width: 100%; height: {height}px; border: 1px solid #ddd; border-radius: 6px"'
            ' title="minigrad backward player"></iframe>')
