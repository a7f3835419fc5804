"""The backward player's own words, in English and Chinese (the narration of each step comes
from explain.py). "{k}", "{n}", "{nodes}", ... are filled in by the page's script. The
language button shows the language it switches to. `drawn_*` are the words inside the graph
drawing (viz.py writes them in English: "step 3", "grad [1., 2.]", "(3, 4) norm 5.1"), which
the script puts into the page's language."""

from __future__ import annotations

__all__ = ["UI"]

UI: dict[str, dict[str, str]] = {
    "en": {
        "title": "minigrad · backward player",
        "prev": "◀ Previous", "next": "Next ▶", "play": "▶ Play", "pause": "❚❚ Pause",
        "lang": "中文", "speed": "speed", "slider": "Step",
        "zoom": "Zoom", "zoom_whole": "Whole graph", "zoom_width": "Fit width",
        "zoom_step": "Around the step", "zoom_actual": "Actual size",
        "before": "Before backward", "step": "Step {k} of {n}", "of": "/ {n}",
        "start": "Nothing has run yet. Press Next (or →) to run the first step.",
        "finished": "Backward finished: every step has run.",
        "no_steps": "No backward pass was run, so there is nothing to step through.",
        "leaves": "Leaves' .grad so far",
        "legend_current": "running now", "legend_done": "already run",
        "legend_sent": "gradient sent now", "legend_incoming": "gradient coming in",
        "keys": "Keys: ← → step · space play/pause · Home/End first/last step · "
                "click a node to jump to its step",
        "no_graph": 'The drawing was left out (svg=""); the steps still work.',
        "layout_dot": "Drawn by graphviz (dot).",
        "layout_big": "Laid out by minigrad's own layered layout: {nodes} nodes are more than "
                      "graphviz lays out quickly (the player asks it for up to {limit}).",
        "layout_no_dot": "Laid out by minigrad's own layered layout: graphviz's `dot` program "
                         "was not found (Debian/Ubuntu: apt-get install graphviz; macOS: "
                         "brew install graphviz).",
        "layout_slow": "Laid out by minigrad's own layered layout: graphviz took longer than "
                       "{seconds} s.",
        "layout_failed": "Laid out by minigrad's own layered layout: graphviz's `dot` program "
                         "failed on this graph.",
        "drawn_step": "step {k}", "drawn_steps": "steps {k}", "drawn_sep": ", ",
        "drawn_grad": "grad", "drawn_norm": "norm", "grad_suffix": ".grad",
    },
    "zh": {
        "title": "minigrad · 反向传播逐步演示",
        "prev": "◀ 上一步", "next": "下一步 ▶", "play": "▶ 播放", "pause": "❚❚ 暂停",
        "lang": "English", "speed": "速度", "slider": "步骤",
        "zoom": "缩放", "zoom_whole": "全图", "zoom_width": "适应宽度",
        "zoom_step": "当前步附近", "zoom_actual": "原始大小",
        "before": "反向传播开始前", "step": "第 {k} 步（共 {n} 步）", "of": "/ {n}",
        "start": "还没有执行任何节点。按“下一步”（或 →）执行第一步。",
        "finished": "反向传播完成：所有步骤均已执行。",
        "no_steps": "这次没有运行反向传播，因此没有可以逐步查看的步骤。",
        "leaves": "叶子节点当前的 .grad",
        "legend_current": "正在执行", "legend_done": "已执行",
        "legend_sent": "本步传出的梯度", "legend_incoming": "传入的梯度",
        "keys": "快捷键：← → 上一步/下一步 · 空格 播放/暂停 · Home/End 第一步/最后一步 · "
                "点击节点可跳到执行它的那一步",
        "no_graph": '页面未包含计算图（svg=""）；逐步讲解照常可用。',
        "layout_dot": "计算图由 graphviz（dot）绘制。",
        "layout_big": "计算图由 minigrad 自带的分层布局绘制：图中有 {nodes} 个节点，graphviz "
                      "难以快速排版（节点不超过 {limit} 个时才交给它）。",
        "layout_no_dot": "计算图由 minigrad 自带的分层布局绘制：没有找到 graphviz 的 `dot` 程序"
                         "（Debian/Ubuntu：apt-get install graphviz；macOS：brew install "
                         "graphviz）。",
        "layout_slow": "计算图由 minigrad 自带的分层布局绘制：graphviz 排版超过了 {seconds} 秒。",
        "layout_failed": "计算图由 minigrad 自带的分层布局绘制：graphviz 的 `dot` 程序处理这张图"
                         "时出错。",
        "drawn_step": "第 {k} 步", "drawn_steps": "第 {k} 步", "drawn_sep": "、",
        "drawn_grad": "梯度", "drawn_norm": "范数", "grad_suffix": ".grad",
    },
}
