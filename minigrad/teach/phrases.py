"""The sentences of the narration, in English and in Chinese (as a teacher would say them).

One dict per language, same keys; `explain.py` fills in the `{placeholders}`. To add a
language, add a dict here with every key, and its remarks to `NOTES`.
"""

from __future__ import annotations

PHRASES: dict[str, dict[str, str]] = {
    "en": {
        "forward": "Forward pass{engine}: {n} operation{s}",
        "engine": " (recorded by {engine})",
        "shape": "shape {shape}",
        "stats": "shape {shape}, mean {mean}, |max| {absmax}",
        "backward": "Backward pass{k} from {root} ({seed}): {n} step{s}",
        "seed_scalar": "seed gradient 1, since {root} is a scalar",
        "seed_given": "seed gradient given: {value}",
        "step": "step {i}",
        "incoming": "incoming",
        "rule": "rule",
        "to": "to {label}",
        "hook": "hook",
        "no_formula": "(this Function gives no formula)",
        "engine_rule": "{engine}'s own backward of {name} (minigrad has no formula for it)",
        "none": "no gradient (None)",
        "constant": "{c} = {value} is a constant: no gradient for it",
        "constant_unknown": "{c} is a constant: no gradient for it",
        "summed": "summed over {dims} to match {label}'s shape {shape}",
        "dim": "dim {d}",
        "dims": "dims {d}",
        "was_none": "(was None)",
        "added": "{before} + {incoming} = {after}",
        "not_stored": "{label} receives {value} (not accumulated)",
        "hook_changed": "{where} {name} changed the gradient: {before} -> {after}",
        "hook_same": "{where} {name} ran (gradient unchanged)",
        "hook_changed_long": "{where} {name} changed the gradient:",
        "before": "before", "after": "after",
        "where_tensor": "tensor hook", "where_prehook": "pre-hook", "where_hook": "node hook",
        "at": "(at {line})",
        "no_backward": "No backward pass was run.",
        "leaves": "Leaves: ",
        "sep": ", ",
        "summary": "Summary: {ops} operation{s}, {steps} backward step{ss}, {leaves} lea{ves}",
        "took": "; backward took {ms} ms",
        "open": "(", "close": ")", "semi": " ;  ",
    },
    "zh": {
        "forward": "前向传播{engine}：共 {n} 个运算",
        "engine": "（由 {engine} 记录）",
        "shape": "形状 {shape}",
        "stats": "形状 {shape}，均值 {mean}，最大绝对值 {absmax}",
        "backward": "反向传播{k}：从 {root} 出发（{seed}），共 {n} 步",
        "seed_scalar": "{root} 是标量，初始梯度为 1",
        "seed_given": "初始梯度由你给出：{value}",
        "step": "第 {i} 步",
        "incoming": "传入梯度",
        "rule": "求导法则",
        "to": "传给 {label}",
        "hook": "钩子",
        "no_formula": "（这个 Function 没有给出求导公式）",
        "engine_rule": "{engine} 自己对 {name} 的反向计算（minigrad 没有它的求导公式）",
        "none": "没有梯度（None）",
        "constant": "{c} = {value} 是常数，不需要梯度",
        "constant_unknown": "{c} 是常数，不需要梯度",
        "summed": "对{dims}求和，以匹配 {label} 的形状 {shape}",
        "dim": "第 {d} 维",
        "dims": "第 {d} 维",
        "was_none": "（原来为 None）",
        "added": "{before} + {incoming} = {after}",
        "not_stored": "{label} 收到 {value}（没有累加）",
        "hook_changed": "{where} {name} 改变了梯度：{before} -> {after}",
        "hook_same": "{where} {name} 运行了（梯度不变）",
        "hook_changed_long": "{where} {name} 改变了梯度：",
        "before": "改变前", "after": "改变后",
        "where_tensor": "张量钩子", "where_prehook": "前置钩子", "where_hook": "节点钩子",
        "at": "（源代码 {line}）",
        "no_backward": "没有运行反向传播。",
        "leaves": "叶子节点：",
        "sep": "，",
        "summary": "小结：{ops} 个运算，{steps} 个反向步骤，{leaves} 个叶子节点",
        "took": "；反向传播用时 {ms} 毫秒",
        "open": "（", "close": "）", "semi": " ； ",
    },
}

# What a teacher adds after an op's rule, by node name (`{n}`: how many elements were averaged).
NOTES: dict[str, dict[str, str]] = {
    "en": {
        "SumBackward0": "the gradient is copied to every element",
        "SumBackward1": "the gradient is copied along the summed dims",
        "MeanBackward0": "each element gets 1/n of it, n = {n}",
        "MeanBackward1": "each element gets 1/n of it, n = {n}",
        "ExpandBackward0": "the copies' gradients are added back together",
        "ReluBackward0": "the gradient passes only where the input was positive",
        "ViewBackward0": "only the shape changes",
        "UnsafeViewBackward0": "only the shape changes",
        "CloneBackward0": "a copy passes the gradient unchanged",
        "MaxBackward1": "only the largest element gets the gradient",
        "MinBackward1": "only the smallest element gets the gradient",
        # the layers (convolution, pooling, normalisation, embedding)
        "ConvolutionBackward0": "each output is a dot product of the kernel with one window "
        "of the input; the gradient of the input adds each window's share back (col2im)",
        "MaxPool2DWithIndicesBackward0": "the gradient goes to the max of each window",
        "AdaptiveMaxPool2DBackward0": "the gradient goes to the max of each window",
        "AvgPool2DBackward0": "each output is a window's mean: its gradient is shared equally "
        "by the window's elements",
        "AdaptiveAvgPool2DBackward0": "each output is a window's mean: its gradient is shared "
        "equally by the window's elements",
        "Im2ColBackward0": "each window was copied into a column: its gradient is added back "
        "where it came from",
        "Col2ImBackward0": "each column was added into its window: it gets that window's "
        "gradient",
        "NativeBatchNormBackward0": "mean and variance depend on every element of the batch, "
        "so each input's gradient loses its share of the mean and of x_hat's direction",
        "NativeLayerNormBackward0": "mean and variance depend on every normalised element, so "
        "each input's gradient loses its share of the mean and of x_hat's direction",
        "NativeGroupNormBackward0": "mean and variance depend on every element of the group, "
        "so each input's gradient loses its share of the mean and of x_hat's direction",
        "EmbeddingBackward0": "each looked-up row gets the gradients of the places it was "
        "used, added up",
    },
    "zh": {
        "SumBackward0": "梯度原样复制给每个元素",
        "SumBackward1": "梯度沿求和的维度复制",
        "MeanBackward0": "每个元素分到 1/n，n = {n}",
        "MeanBackward1": "每个元素分到 1/n，n = {n}",
        "ExpandBackward0": "各个副本的梯度加回到一起",
        "ReluBackward0": "只有输入为正的位置才让梯度通过",
        "ViewBackward0": "只改变形状",
        "UnsafeViewBackward0": "只改变形状",
        "CloneBackward0": "复制操作把梯度原样传回",
        "MaxBackward1": "只有最大的元素得到梯度",
        "MinBackward1": "只有最小的元素得到梯度",
        # 网络层（卷积、池化、归一化、嵌入）
        "ConvolutionBackward0": "每个输出都是卷积核与输入中一个窗口的点积；"
        "输入的梯度把每个窗口分到的那一份加回原处（col2im）",
        "MaxPool2DWithIndicesBackward0": "梯度只流向每个窗口里的最大值",
        "AdaptiveMaxPool2DBackward0": "梯度只流向每个窗口里的最大值",
        "AvgPool2DBackward0": "每个输出是一个窗口的平均值，它的梯度由窗口内的元素平分",
        "AdaptiveAvgPool2DBackward0": "每个输出是一个窗口的平均值，它的梯度由窗口内的元素平分",
        "Im2ColBackward0": "每个窗口被复制成一列，这一列的梯度加回它原来的位置",
        "Col2ImBackward0": "每一列被加回到它的窗口里，于是得到这个窗口的梯度",
        "NativeBatchNormBackward0": "均值和方差取决于整批数据中的每个元素，"
        "所以每个输入的梯度都要减去它在均值和 x_hat 方向上分摊的部分",
        "NativeLayerNormBackward0": "均值和方差取决于参与归一化的每个元素，"
        "所以每个输入的梯度都要减去它在均值和 x_hat 方向上分摊的部分",
        "NativeGroupNormBackward0": "均值和方差取决于同一组里的每个元素，"
        "所以每个输入的梯度都要减去它在均值和 x_hat 方向上分摊的部分",
        "EmbeddingBackward0": "被查到的每一行，会收到它被用到的各个位置上的梯度之和",
    },
}
