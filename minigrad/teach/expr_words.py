"""What `minigrad.teach.expr` says when it refuses an expression, in English and Chinese (a
phrase table, `minigrad.teach.words`); `python -m minigrad explain --lang zh` prints the
Chinese. `KINDS` names the kinds of Python syntax it refuses, by `ast` class name."""

from __future__ import annotations

__all__ = ["EXPR_WORDS", "KINDS"]

EXPR_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "not_string": "an expression must be a string, not {type}",
        "too_long": "expression too long ({n} characters; at most {limit})",
        "syntax": "not a valid expression: {msg} in {source!r}",
        "unreadable": "cannot read the expression: {error}",
        "nested": "the expression is nested too deeply",
        "gives": "the expression gives a {type}, not a tensor",
        "refused": "refused `{piece}`: {why}",
        "refused_piece": "refused `{piece}`",
        "constant": "only numbers are allowed as constants, not {type}",
        "call_it": "`{name}` is a function: call it, as in {name}(x)",
        "not_input": "`{name}` is not one of the inputs ({names})",
        "no_inputs": "`{name}` is not one of the inputs (none given)",
        "binary": "only + - * / // % ** @ are allowed between values",
        "unary": "only unary minus and plus are allowed",
        "compare": "only one comparison (< > <= >= == !=) at a time",
        "attribute": "attribute `.{attr}` is not allowed (only Tensor methods such as x.sum(), "
                     "x.T, and .values/.indices of max(dim=...))",
        "kind": "{kind} is not allowed in an expression",
        "receiver": "methods, attributes and subscripts apply to tensors only",
        "not_here": "`{name}` is not a function you may call here; allowed: {allowed}",
        "not_function": "`{name}` is not an allowed function",
        "method": "method `.{name}()` is not allowed; allowed Tensor methods: {allowed}",
        "not_callable": "{kind} cannot be called: only minigrad functions and Tensor methods "
                        "can",
        "this": "this",
        "unpacking": "**-unpacking is not allowed",
        "keyword": "keyword `{name}=` is not allowed; allowed: {allowed}",
        "failed": "`{piece}` failed: {error}",
        "values_only": "`{piece}`: .{attr} belongs to what max(dim=...) and min(dim=...) "
                       "return",
        "elements": "`{piece}` would make {size:,} elements; an expression may make at most "
                    "{limit:,}",
        "items": "`{piece}` would make a list of {items:,} items; at most {limit:,}",
        "too_large": "`{piece}` is a number too large for an expression",
        "not_tensor": "`{piece}` is a {type}, not a tensor",
        "work": "`{piece}` takes the expression past {limit:,} steps (elements read and "
                "written, multiply-adds); an expression may take at most that many",
        "total": "`{piece}` takes the expression past {limit:,} elements made in all; an "
                 "expression may make at most that many",
        "seconds": "`{piece}` takes the expression past {limit:g} seconds; an expression may "
                   "take at most that long",
    },
    "zh": {
        "not_string": "表达式必须是字符串，而不是 {type}",
        "too_long": "表达式太长（{n} 个字符；最多 {limit} 个）",
        "syntax": "{source!r} 不是合法的表达式：{msg}",
        "unreadable": "无法读取这个表达式：{error}",
        "nested": "表达式嵌套得太深了",
        "gives": "表达式的结果是 {type}，而不是张量",
        "refused": "不接受 `{piece}`：{why}",
        "refused_piece": "不接受 `{piece}`",
        "constant": "常量只能是数字，不能是 {type}",
        "call_it": "`{name}` 是函数，要调用它，比如 {name}(x)",
        "not_input": "`{name}` 不是输入之一（输入有：{names}）",
        "no_inputs": "`{name}` 不是输入之一（输入有：无）",
        "binary": "值之间只能用 + - * / // % ** @",
        "unary": "一元运算只能用负号和正号",
        "compare": "一次只能做一个比较（< > <= >= == !=）",
        "attribute": "不允许使用属性 `.{attr}`（只能用 Tensor 的方法，如 x.sum()、x.T，以及 "
                     "max(dim=...) 结果的 .values/.indices）",
        "kind": "表达式里不允许出现{kind}",
        "receiver": "方法、属性和下标只能用在张量上",
        "not_here": "这里不能调用 `{name}`；可以调用的有：{allowed}",
        "not_function": "`{name}` 不是允许调用的函数",
        "method": "不允许调用方法 `.{name}()`；可以用的 Tensor 方法有：{allowed}",
        "not_callable": "{kind}不能调用：只能调用 minigrad 的函数和 Tensor 的方法",
        "this": "这个东西",
        "unpacking": "不允许用 ** 解包",
        "keyword": "不允许使用关键字参数 `{name}=`；可以用的有：{allowed}",
        "failed": "`{piece}` 出错了：{error}",
        "values_only": "`{piece}`：.{attr} 只属于 max(dim=...) 和 min(dim=...) 的返回值",
        "elements": "`{piece}` 会产生 {size:,} 个元素；一个表达式最多只能产生 {limit:,} 个",
        "items": "`{piece}` 会产生一个 {items:,} 项的列表；最多 {limit:,} 项",
        "too_large": "`{piece}` 这个数太大，不能用在表达式里",
        "not_tensor": "`{piece}` 是 {type}，而不是张量",
        "work": "`{piece}` 会让整个表达式超过 {limit:,} 步计算（读写的元素和乘加），这是上限",
        "total": "`{piece}` 会让整个表达式产生的元素超过 {limit:,} 个，这是上限",
        "seconds": "`{piece}` 会让整个表达式的计算超过 {limit:g} 秒，这是上限",
    },
}

# the kinds of syntax refused, by `ast` class name ("a list comprehension is not allowed")
KINDS: dict[str, dict[str, str]] = {
    "en": {
        "Lambda": "a lambda", "ListComp": "a list comprehension", "SetComp": "a set comprehension",
        "DictComp": "a dict comprehension", "GeneratorExp": "a generator expression",
        "Dict": "a dict", "Set": "a set", "JoinedStr": "an f-string",
        "IfExp": "a conditional expression", "BoolOp": "`and`/`or`",
        "NamedExpr": "an assignment (:=)", "Starred": "*-unpacking", "Await": "await",
        "Yield": "yield", "YieldFrom": "yield",
    },
    "zh": {
        "Lambda": "lambda", "ListComp": "列表推导式", "SetComp": "集合推导式",
        "DictComp": "字典推导式", "GeneratorExp": "生成器表达式", "Dict": "字典", "Set": "集合",
        "JoinedStr": "f 字符串", "IfExp": "条件表达式", "BoolOp": "`and`/`or`",
        "NamedExpr": "赋值表达式（:=）", "Starred": "* 解包", "Await": "await", "Yield": "yield",
        "YieldFrom": "yield",
    },
}
