"""The element-by-element exercises: one input (exp, log, ...) or two that broadcast (mul, ...).

Each solution computes forward with numpy on the input arrays, and backward with Tensor
operations, so that the backward can itself be differentiated (the "second" check).
"""

from __future__ import annotations

from minigrad.course.entry import Op
from minigrad.testing.domains import AWAY_FROM_ZERO, NONZERO, POSITIVE, REAL

SAVE_AB = "ctx.save_for_backward(a, b)\n"


def _binary(name: str, cls: str, maths: str, en: str, zh: str, forward: str, grads: str,
            reference, domains=(REAL,), hint=None) -> Op:
    backward = ("a, b = ctx.saved_tensors\n"
                f"{grads}\n"
                "return ga.sum_to_size(a.shape), gb.sum_to_size(b.shape)")
    return Op(name, cls, "binary", "a, b", maths, {"en": en, "zh": zh},
              SAVE_AB + f"return {forward}", backward, reference, domains, hint=hint or {})


def _unary(name: str, cls: str, maths: str | dict[str, str], en: str, zh: str, forward: str,
           grad: str, reference, domains=(REAL,), second=True, hint=None) -> Op:
    return Op(name, cls, "unary", "x", maths, {"en": en, "zh": zh},
              f"ctx.save_for_backward(x)\nreturn {forward}",
              f"(x,) = ctx.saved_tensors\nreturn {grad}", reference, domains, second,
              hint or {})


POINTWISE = [
    _binary("add", "Add", "out = a + b;   d out/da = 1,   d out/db = 1",
            "a + b, element by element.", "a + b，逐元素相加。",
            "a.array + b.array", "ga, gb = grad, grad", lambda a, b: a + b),
    _binary("sub", "Sub", "out = a - b;   d out/da = 1,   d out/db = -1",
            "a - b, element by element.", "a - b，逐元素相减。",
            "a.array - b.array", "ga, gb = grad, -grad", lambda a, b: a - b),
    _binary("mul", "Mul", "out = a * b;   d out/da = b,   d out/db = a",
            "a * b, element by element.", "a * b，逐元素相乘。",
            "a.array * b.array", "ga, gb = grad * b, grad * a", lambda a, b: a * b),
    _binary("div", "Div", "out = a / b;   d out/da = 1 / b,   d out/db = -a / b**2",
            "a / b, element by element.", "a / b，逐元素相除。",
            "a.array / b.array", "ga, gb = grad / b, -grad * a / b ** 2",
            lambda a, b: a / b, (REAL, NONZERO),
            {"en": "The grader keeps b away from 0 (at least 0.25 from it).",
             "zh": "评分时 b 不会接近 0（离 0 至少 0.25）。"}),
    Op("neg", "Neg", "unary", "x", "out = -x;   d out/dx = -1",
       {"en": "-x, element by element.", "zh": "-x，逐元素取负。"},
       "return -x.array", "return -grad", lambda x: -x),
    Op("pow", "Pow", "power", "x, exponent=2.0",
       "out = x ** p;   d out/dx = p * x ** (p - 1)",
       {"en": "x raised to a fixed power p (`exponent`), element by element.",
        "zh": "x 的 p 次幂（p 即 `exponent`，是一个固定的数），逐元素计算。"},
       "ctx.save_for_backward(x)\nctx.exponent = exponent\nreturn x.array ** exponent",
       "(x,) = ctx.saved_tensors\np = ctx.exponent\nreturn grad * p * x ** (p - 1)",
       lambda x, exponent=2.0: x ** exponent, (POSITIVE,),
       hint={"en": "The grader draws x > 0, so that x ** 0.5 and x ** -1 are defined.",
             "zh": "评分时 x 总是正数，这样 x ** 0.5 和 x ** -1 都有定义。"}),
    _unary("exp", "Exp", "out = exp(x);   d out/dx = exp(x)",
           "e to the power x, element by element.", "e 的 x 次幂，逐元素计算。",
           "np.exp(x.array)", "grad * x.exp()", lambda x: x.exp()),
    _unary("log", "Log", "out = log(x);   d out/dx = 1 / x",
           "The natural logarithm of x, element by element.", "x 的自然对数，逐元素计算。",
           "np.log(x.array)", "grad / x", lambda x: x.log(), (POSITIVE,),
           hint={"en": "The grader draws x > 0 only.", "zh": "评分时 x 总是正数。"}),
    _unary("sin", "Sin", "out = sin(x);   d out/dx = cos(x)",
           "The sine of x, element by element.", "x 的正弦，逐元素计算。",
           "np.sin(x.array)", "grad * x.cos()", lambda x: x.sin()),
    _unary("cos", "Cos", "out = cos(x);   d out/dx = -sin(x)",
           "The cosine of x, element by element.", "x 的余弦，逐元素计算。",
           "np.cos(x.array)", "-grad * x.sin()", lambda x: x.cos()),
    _unary("tanh", "Tanh", "out = tanh(x);   d out/dx = 1 - tanh(x)**2",
           "The hyperbolic tangent of x, element by element.", "x 的双曲正切，逐元素计算。",
           "np.tanh(x.array)", "grad * (1 - x.tanh() ** 2)", lambda x: x.tanh()),
    _unary("sigmoid", "Sigmoid", "out = s(x) = 1 / (1 + exp(-x));   d out/dx = s(x) * (1 - s(x))",
           "The logistic sigmoid of x, element by element.",
           "x 的 sigmoid（逻辑函数），逐元素计算。",
           "1 / (1 + np.exp(-x.array))", "grad * x.sigmoid() * (1 - x.sigmoid())",
           lambda x: x.sigmoid()),
    _unary("relu", "ReLU", {"en": "out = max(x, 0);   d out/dx = 1 where x > 0, else 0",
                            "zh": "out = max(x, 0);   d out/dx 在 x > 0 处为 1，其余为 0"},
           "x where x is positive, 0 elsewhere.", "x 为正时取 x，否则取 0。",
           "np.maximum(x.array, 0.0)", "grad * (x > 0)", lambda x: x.relu(), (AWAY_FROM_ZERO,),
           second=False,
           hint={"en": "The grader keeps x away from the kink at 0.",
                 "zh": "评分时 x 不会落在 0 这个折点附近。"}),
    _unary("sqrt", "Sqrt", "out = sqrt(x);   d out/dx = 1 / (2 * sqrt(x))",
           "The square root of x, element by element.", "x 的平方根，逐元素计算。",
           "np.sqrt(x.array)", "grad / (2 * x.sqrt())", lambda x: x.sqrt(), (POSITIVE,),
           hint={"en": "The grader draws x > 0 only.", "zh": "评分时 x 总是正数。"}),
]
