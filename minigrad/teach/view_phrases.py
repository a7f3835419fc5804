"""The words of the drawings and of the module summary, in English and in Chinese.

(Apart from `phrases.py`, the narration's sentences.) Same keys in every language;
`viz`, `module_drawing` and `summary` fill in the `{placeholders}`.
"""

from __future__ import annotations

VIEW_PHRASES: dict[str, dict[str, str]] = {
    "en": {
        "step": "step {i}", "steps": "steps {i}",
        "grad": "grad", "constant": "constant",
        "legend": "How to read this graph",
        "legend_leaf": "a leaf tensor (an input or a parameter) and its .grad",
        "legend_op": "an op's backward node (its grad_fn name) and the code that made it",
        "legend_output": "the output that backward started from",
        "legend_constant": "a constant: it gets no gradient",
        "legend_module": "a module: class, parameters, gradient norm, steps; "
                         "x N = N identical blocks in a row",
        "legend_arrow": "arrow a → b: b used a in the forward pass (as torchviz draws it).",
        "legend_steps": "Gradients flow back against the arrows, in the numbered steps:\n"
                        "step 1 is at the top.",
        "params": "{n} params", "no_params": "no parameters",
        "grad_norm": "grad norm {v}", "calls": "called {n} times",
        "in_out": "in {a} → out {b}", "out": "out {b}",
        "light": "{n} nodes: drawn with light labels so that the layout stays fast; "
                 "draw one box per module with depth=1",
    },
    "zh": {
        "step": "第 {i} 步", "steps": "第 {i} 步",
        "grad": "梯度", "constant": "常数",
        "legend": "怎样读这张图",
        "legend_leaf": "叶子张量（输入或参数）和它的 .grad",
        "legend_op": "一个运算的反向节点（grad_fn 的名字）和产生它的那行代码",
        "legend_output": "反向传播的起点：输出",
        "legend_constant": "常数：它不需要梯度",
        "legend_module": "一个模块：类名、参数个数、梯度范数、反向步骤；"
                         "x N 表示连续 N 个相同的块",
        "legend_arrow": "箭头 a → b：前向传播时 b 用到了 a（与 torchviz 的画法相同）。",
        "legend_steps": "梯度逆着箭头往回传，按步骤编号依次进行：\n第 1 步在最上面。",
        "params": "{n} 个参数", "no_params": "没有参数",
        "grad_norm": "梯度范数 {v}", "calls": "调用了 {n} 次",
        "in_out": "输入 {a} → 输出 {b}", "out": "输出 {b}",
        "light": "共 {n} 个节点：为了让排版保持快速，节点上只写名字；"
                 "用 depth=1 把每个模块画成一个框",
    },
}
