"""grad_report, its plot and GradFlow in a notebook: each shows itself (an HTML table with the
suspects highlighted, inline PNGs) with no `%matplotlib inline` first. Checked through
IPython's own display formatter, the code Jupyter runs for a cell's last expression (the
lesson notebooks are also executed in a real kernel: tests/teach/test_notebooks.py)."""

from __future__ import annotations

import html

import pytest

import minigrad as mg
from minigrad import nn
from tests.nn.test_grad_report import frozen_and_dead

PNG = b"\x89PNG\r\n\x1a\n"
pytestmark = pytest.mark.jupyter  # (IPython's formatter; it comes with ipykernel)


def formats(obj) -> dict:
    """What Jupyter would get for `obj` as a cell's last expression: MIME type -> data."""
    from IPython.core.formatters import DisplayFormatter

    data, _ = DisplayFormatter().format(obj)
    return data


def test_the_report_is_an_html_table_with_the_suspects_highlighted():
    report = nn.utils.grad_report(frozen_and_dead(), show=False)
    data = formats(report)
    assert set(data) == {"text/plain", "text/html"}
    assert data["text/plain"] == str(report)  # the text table, not [GradRow(name=...
    page = data["text/html"]
    rows = page.split("<tbody>")[1].split("</tbody>")[0].split("</tr>")[:-1]
    assert len(rows) == len(report) == 6
    for row, r in zip(rows, report):
        assert f"<td style=\"text-align:left\">{r.name}</td>" in row
        assert ("background:" in row) == bool(r.warnings), row
    assert "background:#eeeeee" in rows[0] and "background:#fff3cd" in rows[2]  # frozen, dead
    assert "<th" in page and "grad norm" in page
    assert html.escape("2.weight: vanishing: the gradient is all zeros") in page
    assert "6 parameters, 5 with warnings." in page
    zh = formats(nn.utils.grad_report(frozen_and_dead(), lang="zh", show=False))["text/html"]
    assert "梯度范数" in zh and "共 6 个参数，其中 5 个有警告。" in zh


def test_names_are_escaped_in_the_html():
    p = nn.Parameter(mg.ones(2))
    p.grad = mg.ones(2)
    page = nn.utils.grad_report({"<b>w</b>": p}, show=False)._repr_html_()
    assert "<b>w</b>" not in page and "&lt;b&gt;w&lt;/b&gt;" in page


def test_the_plot_and_grad_flow_are_inline_pictures():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    model(mg.randn(8, 3)).pow(2).mean().backward()
    figure = nn.utils.grad_report(model, show=False).plot()
    data = formats(figure)
    assert data["image/png"].startswith(PNG) and data["text/plain"].startswith("<")
    flow = nn.utils.GradFlow(model)  # importable where the lesson uses it
    assert nn.utils.GradFlow is nn.grad_report.GradFlow
    assert set(formats(flow)) == {"text/plain"} and repr(flow) == "<GradFlow: 0 steps recorded>"
    flow()
    flow()
    data = formats(flow)
    assert data["image/png"].startswith(PNG) and data["text/plain"] == \
        "<GradFlow: 2 steps recorded>"


def test_a_model_without_any_nonzero_gradient_is_still_drawn():
    """Every layer's gradient zero (a dead ReLU before the last layer) or frozen: nothing a log
    scale can show, so the picture says so instead of failing to draw."""
    figure = nn.utils.grad_report(frozen_and_dead(), show=False).plot()
    assert formats(figure)["image/png"].startswith(PNG)
    assert figure.axes[0].get_title() == "gradient flow: no layer has a nonzero gradient"
