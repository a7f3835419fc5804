"""The words of the module summary and of the module headings in a long explanation, in
English and Chinese (apart from `phrases.py`; same keys in every language)."""

from __future__ import annotations

SUMMARY_PHRASES: dict[str, dict[str, str]] = {
    "en": {
        "title": "Gradients by module, suspects first ({n} modules with parameters, "
                 "{steps} backward steps):",
        "module": "module", "type": "type", "params": "params", "grad_norm": "|grad|",
        "ratio": "|grad|/|weight|", "steps": "steps", "warning": "warning",
        "model": "(model)", "top": "(top level: the model's own code, or outside it)",
        "exploding": "exploding: nan/inf, or |grad|/|weight| > 1e3",
        "none": "no gradient (None): the loss does not use it",
        "vanishing": "vanishing: the gradient is (nearly) zero",
        "vanishing_vs": "vanishing: {x} times smaller than in module {best}",
        "frozen": "frozen: some parameters have requires_grad=False",
        "more": "... and {n} more modules",
        "heading": "▸ {path}  {type}",
        "at": "at {line}",
    },
    "zh": {
        "title": "各模块的梯度，可疑的排在最前（共 {n} 个带参数的模块，{steps} 个反向步骤）：",
        "module": "模块", "type": "类型", "params": "参数个数", "grad_norm": "|梯度|",
        "ratio": "|梯度|/|权重|", "steps": "反向步骤", "warning": "提示",
        "model": "（整个模型）", "top": "（顶层：模型自己的代码，或模型之外）",
        "exploding": "梯度爆炸：出现 nan/inf，或 |梯度|/|权重| 超过 1e3",
        "none": "没有梯度（None）：损失没有用到它",
        "vanishing": "梯度消失：梯度（几乎）为 0",
        "vanishing_vs": "梯度消失：只有模块 {best} 的 1/{x}",
        "frozen": "已冻结：有参数设了 requires_grad=False",
        "more": "……另有 {n} 个模块",
        "heading": "▸ {path}  {type}",
        "at": "源代码 {line}",
    },
}
