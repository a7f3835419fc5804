"""The sentences of the narration, in English and in Chinese (as a teacher would say them).

One dict per language, same keys; `explain.py` fills in the `{placeholders}`. To add a
language, add a dict here with every key, and its remarks to `NOTES`. A count chooses the
ending of the English word after it: `{n} step{n:|s}` reads "1 step", "2 steps" (`Count`).
"""

from __future__ import annotations


class Count(int):
    """A count in a phrase: `{n:one|other}` writes `one` after 1 and `other` after any other
    count (`lea{n:f|ves}`); `{n}` writes the number."""

    def __format__(self, spec: str) -> str:
        if "|" in spec:
            one, other = spec.split("|", 1)
            return one if self == 1 else other
        return format(int(self), spec)


PHRASES: dict[str, dict[str, str]] = {
    "en": {
        "forward": "Forward pass{engine}: {n} operation{n:|s}",
        "engine": " (recorded by {engine})",
        "shape": "shape {shape}",
        "stats": "shape {shape}, mean {mean}, |max| {absmax}",
        "backward": "Backward pass{k} from {root} ({seed}): {n} step{n:|s}",
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
        "dims": "dim{n:|s} {d}",
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
        "summary": "Summary: {ops} operation{ops:|s}, {steps} backward step{steps:|s}, "
                   "{leaves} lea{leaves:f|ves}",
        "took": "; backward took {ms} ms",
        "open": "(", "close": ")",
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
        "open": "（", "close": "）",
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

# Derivative rules whose formula has English words in it (`view: grad reshaped back to the
# input's shape`), in Chinese: `op_words.rule(..., lang="zh")` reads them. Keyed by the formula
# itself, which is the English (so the table lists "zh" only; `minigrad.teach.words`); the `;`
# parts stay in the same order, since `rule` keeps only the parts of inputs that get a
# gradient. A rule written only in symbols (`d(a*b)/da = b`) needs no entry.
RULES: dict[str, dict[str, str]] = {"zh": {
    "d softplus(a)/da = sigmoid(beta * a)  (1 where beta * a > threshold)":
        "d softplus(a)/da = sigmoid(beta * a)  （beta * a > threshold 处为 1）",
    "d elu(a)/da = scale if a > 0 else scale * alpha * input_scale * exp(input_scale * a)":
        "d elu(a)/da = a > 0 时为 scale，否则为 scale * alpha * input_scale * "
        "exp(input_scale * a)",
    "d gelu(a)/da = Phi(a) + a * phi(a)   (phi the normal density)":
        "d gelu(a)/da = Phi(a) + a * phi(a)   （phi 是标准正态分布的密度）",
    "d masked_fill(a)/da = 0 under the mask, 1 elsewhere":
        "d masked_fill(a)/da = 掩码处为 0，其余为 1",
    "d huber/dinput = clamp(input - target, -delta, delta) * grad / N ;  "
    "d huber/dtarget = -(the same)":
        "d huber/dinput = clamp(input - target, -delta, delta) * grad / N ;  "
        "d huber/dtarget = -(同上)",
    "d smooth_l1/dinput = clamp(input - target, -beta, beta) / beta * grad / N ;  "
    "d smooth_l1/dtarget = -(the same)":
        "d smooth_l1/dinput = clamp(input - target, -beta, beta) / beta * grad / N ;  "
        "d smooth_l1/dtarget = -(同上)",
    "d nll/dinput[n, c] = -w[c] * grad / sum(w[target]) if c == target[n], else 0   "
    "(w = class weights, 1 by default; '/ sum' only for 'mean')":
        "d nll/dinput[n, c] = c == target[n] 时为 -w[c] * grad / sum(w[target])，否则为 0   "
        "（w 是类别权重，默认为 1; 只有 'mean' 才除以 sum）",
    "d mse/dinput = 2*(input - target) * grad / N ;  d mse/dtarget = -2*(input - target) * "
    "grad / N   (N = number of elements for 'mean', 1 otherwise)":
        "d mse/dinput = 2*(input - target) * grad / N ;  d mse/dtarget = -2*(input - target) * "
        "grad / N   （'mean' 时 N 是元素个数，否则 N = 1）",
    "out = P_h @ x @ P_w^T, P the averaging matrices (row i: 1/size on window i) ;  "
    "dx = P_h^T @ grad @ P_w":
        "out = P_h @ x @ P_w^T，P 是求平均的矩阵（第 i 行在窗口 i 上为 1/size） ;  "
        "dx = P_h^T @ grad @ P_w",
    "dx[argmax(window)] += grad, for each window": "对每个窗口：dx[argmax(window)] += grad",
    "d pad(x, p)/dx = pad(grad, -p): the padding is cut off again":
        "d pad(x, p)/dx = pad(grad, -p)：把补上的边再切掉",
    "each column is added back to the window it came from ;  d/dcols = im2col(grad): each "
    "column gets the gradient of its window":
        "每一列加回它原来的窗口 ;  d/dcols = im2col(grad)：每一列得到它那个窗口的梯度",
    "each window of the input is copied into one column ;  d/dx = col2im(grad): each column's "
    "gradient is added back to the window it came from":
        "输入的每个窗口复制成一列 ;  d/dx = col2im(grad)：每一列的梯度加回它原来的窗口",
    "dweight[r] = sum of grad[i] over the i with indices[i] == r (none for padding_idx)":
        "dweight[r] = 所有满足 indices[i] == r 的 grad[i] 之和（padding_idx 那一行没有梯度）",
    "dW = sum over windows of grad * window ;  d/dx = conv^T(grad, V) ;  d/dgrad = conv(x, V)"
    "   (V = the gradient arriving for dW)":
        "dW = 对所有窗口求 grad * window 之和 ;  d/dx = conv^T(grad, V) ;  "
        "d/dgrad = conv(x, V)   （V 是传给 dW 的梯度）",
    "d(prod_dim a)/da_i = product of the other elements along dim":
        "d(prod_dim a)/da_i = 沿该维其余元素的乘积",
    "d(prod a)/da_i = product of the other elements": "d(prod a)/da_i = 其余元素的乘积",
    "d||a-b||_p/da = d||d||_p/dd at d = a - b ;  d||a-b||_p/db = its negative":
        "d||a-b||_p/da = d||d||_p/dd，取 d = a - b ;  d||a-b||_p/db = 它的相反数",
    "mode: grad sent back to the chosen element, zeros elsewhere":
        "mode：梯度送回被选中的元素，其余为 0",
    "median(dim): grad sent back to the median element, zeros elsewhere":
        "median(dim)：梯度送回中位数所在的元素，其余为 0",
    "kthvalue: grad sent back to the chosen element, zeros elsewhere":
        "kthvalue：梯度送回被选中的元素，其余为 0",
    "topk: grad sent back to the k chosen elements, zeros elsewhere":
        "topk：梯度送回选中的 k 个元素，其余为 0",
    "sort: grad sent back to where each sorted element came from":
        "sort：梯度送回每个排好序的元素原来的位置",
    "repeat: grad summed over the copies": "repeat：梯度在各个副本上求和",
    "roll: grad rolled back by the opposite shifts": "roll：梯度按相反的位移滚回去",
    "flip: grad flipped back along the same dims": "flip：梯度沿相同的维度翻转回去",
    "narrow_copy: grad placed in the slice, zeros elsewhere":
        "narrow_copy：梯度放回切片所在的位置，其余为 0",
    "unbind: the slices' grads stacked back along dim": "unbind：各切片的梯度沿该维重新堆叠",
    "split: the pieces' grads joined back along dim": "split：各块的梯度沿该维拼接回去",
    "unfold: each window's grad added back where the window was":
        "unfold：每个窗口的梯度加回窗口原来的位置",
    "triu: grad's upper triangle, zeros below": "triu：取梯度的上三角，下方为 0",
    "tril: grad's lower triangle, zeros above": "tril：取梯度的下三角，上方为 0",
    "diag_embed: grad's diagonal taken back": "diag_embed：取回梯度的对角线",
    "diagonal: grad placed on the diagonal, zeros elsewhere":
        "diagonal：梯度放回对角线上，其余为 0",
    "d(A@B)/dA = grad @ B^T ;  d(A@B)/dB = A^T @ grad  (per batch)":
        "d(A@B)/dA = grad @ B^T ;  d(A@B)/dB = A^T @ grad  （逐批次）",
    "take: grad added back at the taken positions (repeats add up)":
        "take：梯度加回被取出的位置（重复的位置累加）",
    "index_add: grad to a as it is; source gets alpha * grad's selected slices":
        "index_add：梯度原样传给 a ;  source 得到 alpha 乘以梯度中选中的切片",
    "index_select: grad added back at the selected slices (repeats add up)":
        "index_select：梯度加回选中的切片（重复的切片累加）",
    "scatter_add: grad to a as it is; src gets grad gathered back":
        "scatter_add：梯度原样传给 a ;  src 得到按原位置收集回来的梯度",
    "scatter(reduce=...): not implemented (as in PyTorch)":
        "scatter(reduce=...)：没有实现（PyTorch 也没有）",
    "scatter(value): grad to a where not overwritten, else 0":
        "scatter(value)：没被覆盖的位置把梯度传给 a，其余为 0",
    "scatter: grad to a where not overwritten; src gets grad gathered back":
        "scatter：没被覆盖的位置把梯度传给 a ;  src 得到按原位置收集回来的梯度",
    "gather: grad added back at the gathered positions (repeats add up)":
        "gather：梯度加回被收集的位置（重复的位置累加）",
    "masked_scatter: grad to a where mask is False; source gets the rest in order":
        "masked_scatter：掩码为 False 处把梯度传给 a ;  其余的按顺序交给 source",
    "masked_select: grad placed back where mask is True, zeros elsewhere":
        "masked_select：梯度放回掩码为 True 的位置，其余为 0",
    "d masked_fill(a, v)/da = 1 where mask is False ;  /dv = sum of grad where mask":
        "d masked_fill(a, v)/da = 掩码为 False 处为 1 ;  /dv = 掩码处梯度之和",
    "d index_fill(a, v)/da = 1 outside the filled slices ;  /dv = their grad summed":
        "d index_fill(a, v)/da = 被填充的切片以外为 1 ;  /dv = 被填充切片上的梯度之和",
    "d masked_fill(a)/da = 1 where mask is False, else 0":
        "d masked_fill(a)/da = 掩码为 False 处为 1，其余为 0",
    "d index_fill(a)/da = 1 outside the filled slices, else 0":
        "d index_fill(a)/da = 被填充的切片以外为 1，其余为 0",
    "stack: grad unstacked into the pieces": "stack：把梯度拆回各个张量",
    "cat: grad split back into the pieces": "cat：把梯度切回各个张量",
    "d(scatter g)/dg = the same positions picked again": "d(scatter g)/dg = 把同样的位置再取出来",
    "index: grad added at each picked position (repeats add up)":
        "index：梯度加到每个被取出的位置（重复的位置累加）",
    "slice: grad placed in the slice, zeros elsewhere": "slice：梯度放回切片所在的位置，其余为 0",
    "select: grad placed at the selected index, zeros elsewhere":
        "select：梯度放回被选中的下标处，其余为 0",
    "d(frac a)/da = 1 (almost everywhere)": "d(frac a)/da = 1（几乎处处成立）",
    "d(step a)/da = 0 (almost everywhere)": "d(step a)/da = 0（几乎处处成立）",
    "d (a[key] = v)/da = 1 outside key, 0 at key ;  /dv = 1 at key":
        "d (a[key] = v)/da = key 以外为 1，key 处为 0 ;  /dv = key 处为 1",
    "d(cummin a)_k/da_i = 1 where i is the index of the min of a_0..a_k, else 0":
        "d(cummin a)_k/da_i = i 是 a_0..a_k 中最小值的下标时为 1，否则为 0",
    "d(cummax a)_k/da_i = 1 where i is the index of the max of a_0..a_k, else 0":
        "d(cummax a)_k/da_i = i 是 a_0..a_k 中最大值的下标时为 1，否则为 0",
    "d(amin a)/da_i = 1 for the smallest along dim (shared on ties), else 0":
        "d(amin a)/da_i = 沿该维最小的元素为 1（并列时平分），其余为 0",
    "d(amax a)/da_i = 1 for the largest along dim (shared on ties), else 0":
        "d(amax a)/da_i = 沿该维最大的元素为 1（并列时平分），其余为 0",
    "d(min_dim a)/da_i = 1 at the index of the min along dim, else 0":
        "d(min_dim a)/da_i = 沿该维最小值的下标处为 1，其余为 0",
    "d(max_dim a)/da_i = 1 at the index of the max along dim, else 0":
        "d(max_dim a)/da_i = 沿该维最大值的下标处为 1，其余为 0",
    "d(median a)/da_i = 1 for the median element (shared on ties), else 0":
        "d(median a)/da_i = 中位数元素为 1（并列时平分），其余为 0",
    "d(nanmedian a)/da_i = 1 for the median element (shared on ties), else 0":
        "d(nanmedian a)/da_i = 中位数元素为 1（并列时平分），其余为 0",
    "d(min a)/da_i = 1 for the smallest element (shared on ties), else 0":
        "d(min a)/da_i = 最小的元素为 1（并列时平分），其余为 0",
    "d(max a)/da_i = 1 for the largest element (shared on ties), else 0":
        "d(max a)/da_i = 最大的元素为 1（并列时平分），其余为 0",
    "expand: grad summed over the expanded dims": "expand：梯度在扩展出来的维度上求和",
    "squeeze: grad reshaped back": "squeeze：梯度变回原来的形状",
    "unsqueeze: grad squeezed back": "unsqueeze：梯度去掉新增的维度",
    "permute: grad permuted back": "permute：梯度按相反的顺序换回各维",
    "view: grad reshaped back to the input's shape": "view：梯度变回输入的形状",
    "d where(c,a,b)/da = 1 where c ;  /db = 1 where not c":
        "d where(c,a,b)/da = c 成立处为 1 ;  /db = c 不成立处为 1",
    "d round(a/b)/da = 0 ;  d round(a/b)/db = 0 (almost everywhere)":
        "d round(a/b)/da = 0 ;  d round(a/b)/db = 0（几乎处处成立）",
    "d(c mod a)/da: not implemented (as in PyTorch)": "d(c mod a)/da：没有实现（PyTorch 也没有）",
    "d floor(a/b)/da: not implemented (0 almost everywhere, as in PyTorch)":
        "d floor(a/b)/da：没有实现（几乎处处为 0，PyTorch 也没有实现）",
    "d(to(a))/da = 1 (converted back to a's dtype)": "d(to(a))/da = 1（再转换回 a 的 dtype）",
}}
_NORM = ("x_hat = (x - mean) / sqrt(var + eps), y = x_hat * weight + bias ;  dx = (1/std) * "
         "(gh - mean(gh) - x_hat * mean(gh * x_hat)), gh = grad * weight ;  "
         "dweight = sum(grad * x_hat) ;  dbias = sum(grad)   ")
RULES["zh"].update({
    _NORM + "(means over each group's channels and positions)":
        _NORM + "（均值取自每组的各通道和各位置）",
    _NORM + "(means over the normalised last dims; sums over the rest)":
        _NORM + "（均值取自被归一化的最后几维 ;  其余维度上求和）",
    _NORM + "(sums and means over the batch and positions; in eval mode mean and var are the "
    "running statistics, constants)":
        _NORM + "（在批次和各位置上求和、求均值 ;  eval 模式下 mean 和 var 是滑动统计量，"
        "当作常数）",
})

# the nodes of an in-place op through a view (ops/view_rebase.py)
RULES["zh"].update({
    "d (a.flat[p])/da = 1 at the positions p, 0 elsewhere (summed where p repeats)":
        "d (a.flat[p])/da = 在位置 p 处为 1，其余为 0（p 重复时累加）",
    "d (a.flat[p] = v)/da = 1 outside p, 0 at p ;  /dv = 1 at p":
        "d (a.flat[p] = v)/da = p 以外为 1，p 处为 0 ;  /dv = p 处为 1",
    "d (zeros.flat[p] += g)/dg = 1 at p": "d (zeros.flat[p] += g)/dg = p 处为 1",
})

# packed sequences (ops/packing.py) and embedding_bag (ops/bags.py)
RULES["zh"].update({
    "d(pack x)/dx = each row's gradient back in its (time, batch) place, 0 at padding":
        "d(pack x)/dx = 每一行的梯度放回它的（时间步, 批）位置，填充处为 0",
    "dweight[r] += grad[bag] (sum; / bag size for mean; to the max's row for max)":
        "dweight[r] += grad[bag]（sum 如此; mean 再除以袋的大小; max 只给取到最大值的那一行）",
})

# matrix_exp (ops/linalg.py) and a reentrant checkpoint's node (utils/checkpoint.py)
RULES["zh"].update({
    "d(exp A) = top-right block of exp([[A^T, grad], [0, A^T]])":
        "d(exp A) = exp([[A^T, grad], [0, A^T]]) 的右上块",
    "recompute block(inputs) with grad on, then backward through it":
        "开启梯度重算 block(inputs)，再在它上面做反向传播",
})
