"""How a gradient report and a gradient-flow picture show themselves in Jupyter.

Left as the last expression of a notebook cell, `grad_report(model)` shows an HTML table
with the suspect rows highlighted (`report_html`), and `report.plot()` or a `GradFlow` an
inline PNG, with no `%matplotlib inline` first: the picture is an `InlineFigure`, a
matplotlib Figure that has `_repr_png_` (IPython's display protocol). A plain Figure made
without pyplot shows only `<Figure size 800x450 with 1 Axes>` unless the inline backend
was switched on. Outside Jupyter nothing changes: the report prints its text table.
"""

from __future__ import annotations

import functools
import html
import io
from typing import Any

__all__ = ["figure", "png", "report_html"]

PLOT_HINT = "pip install matplotlib (or pip install -e '.[plot]')"
# row colours by warning: what needs a look first is red, then amber, then grey
COLOURS = {"exploding": "#fde2e1", "missing": "#fde2e1", "vanishing": "#fff3cd",
           "frozen": "#eeeeee"}


def _figure_class() -> type:
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ModuleNotFoundError(f"plotting the gradient flow needs matplotlib: {PLOT_HINT}"
                                  ) from exc
    return _inline(Figure)


@functools.lru_cache(maxsize=1)
def _inline(Figure: type) -> type:  # noqa: N803  (the class it extends)
    class InlineFigure(Figure):
        """A matplotlib Figure that Jupyter shows as a picture (its PNG)."""

        def _repr_png_(self) -> bytes:
            return png(self)

    return InlineFigure


def figure(**options: Any) -> Any:
    """A new `InlineFigure` (matplotlib's Figure, shown inline by Jupyter); needs matplotlib."""
    return _figure_class()(**options)


def png(fig: Any) -> bytes:
    """The PNG bytes of a matplotlib figure (drawn by matplotlib's Agg, no pyplot)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    return buffer.getvalue()


def report_html(rows: list, headers: tuple[str, ...], cells: list[tuple[str, ...]],
                notes: list[str]) -> str:
    """The report as an HTML table: `cells` are the text table's cells (one tuple per row of
    `rows`), suspects on a coloured background; `notes` (each warning and the summary) below.
    """
    right = {3, 4, 5, 6}  # the numbers
    head = "".join(f'<th style="text-align:{"right" if i in right else "left"}">'
                   f"{html.escape(h)}</th>" for i, h in enumerate(headers))
    body = []
    for row, line in zip(rows, cells):
        colour = next((COLOURS[c] for c in ("exploding", "missing", "vanishing", "frozen")
                       if c in row.warnings), None)
        style = f' style="background:{colour}"' if colour else ""
        tds = "".join(f'<td style="text-align:{"right" if i in right else "left"}">'
                      f"{html.escape(c)}</td>" for i, c in enumerate(line))
        body.append(f"<tr{style}>{tds}</tr>")
    paragraphs = "".join(f'<p style="margin:4px 0">{html.escape(n)}</p>' for n in notes)
    return ('<div class="minigrad-grad-report"><table style="border-collapse:collapse;'
            'font-family:monospace;font-size:12px">'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            f"{paragraphs}</div>")
