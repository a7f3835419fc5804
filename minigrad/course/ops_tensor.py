"""The exercises that look at more than one element: reductions (sum, mean, max), softmaxes,
matmul and the shape ops (transpose, reshape)."""

from __future__ import annotations

from minigrad.course.entry import Op
from minigrad.testing.domains import DISTINCT

PUT_BACK = ("if ctx.dim is not None and not ctx.keepdim:\n"
            "    grad = grad.unsqueeze(ctx.dim)  # the reduced dimension back, with size 1\n")
SAVE_X_DIM = "ctx.save_for_backward(x)\nctx.dim = dim\n"
SOFTMAX_AGAIN = ("(x,) = ctx.saved_tensors\n"
                 "# the softmax again, with Tensor operations (differentiable), shifted by the\n"
                 "# largest value (a constant: no overflow, the same softmax)\n"
                 "e = (x - x.detach().amax(ctx.dim, keepdim=True)).exp()\n"
                 "y = e / e.sum(ctx.dim, keepdim=True)\n")

TENSOR_OPS = [
    Op("sum", "Sum", "reduce", "x, dim=None, keepdim=False",
       {"en": "out = sum of x along dim;   d out/dx[i] = 1 for every element x[i] summed",
        "zh": "out = x 沿 dim 求和;   d out/dx[i] = 1（对每个参与求和的 x[i]）"},
       {"en": "The sum of x's elements: all of them, or along one dimension `dim`.",
        "zh": "x 的元素之和：对全部元素求和，或者沿某一维 `dim` 求和。"},
       "ctx.shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim\n"
       "return np.sum(x.array, axis=dim, keepdims=keepdim)",
       PUT_BACK + "return grad.expand(ctx.shape)",
       lambda x, dim=None, keepdim=False: x.sum() if dim is None else x.sum(dim, keepdim=keepdim)),
    Op("mean", "Mean", "reduce", "x, dim=None, keepdim=False",
       {"en": "out = (sum of x along dim) / n;   d out/dx[i] = 1 / n, n elements averaged",
        "zh": "out = (x 沿 dim 求和) / n;   d out/dx[i] = 1 / n，n 是参与平均的元素个数"},
       {"en": "The mean of x's elements: all of them, or along one dimension `dim`.",
        "zh": "x 的元素的平均值：对全部元素求平均，或者沿某一维 `dim` 求平均。"},
       "out = np.mean(x.array, axis=dim, keepdims=keepdim)\n"
       "ctx.shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim\n"
       "ctx.count = x.array.size // max(np.size(out), 1)  # elements averaged\n"
       "return out",
       PUT_BACK + "return grad.expand(ctx.shape) / ctx.count",
       lambda x, dim=None, keepdim=False: (x.mean() if dim is None
                                           else x.mean(dim, keepdim=keepdim))),
    Op("max", "Max", "along", "x, dim=-1, keepdim=False",
       {"en": "out = max of x along dim;   d out/dx[i] = 1 where x[i] is the maximum, else 0",
        "zh": "out = x 沿 dim 的最大值;   d out/dx[i] 在 x[i] 是最大值处为 1，其余为 0"},
       {"en": "The largest element of x along dimension `dim` (the values, not the indices).",
        "zh": "x 沿 `dim` 这一维的最大元素（只要最大值，不要下标）。"},
       "i = np.argmax(x.array, axis=dim, keepdims=True)\n"
       "ctx.mask = np.zeros_like(x.array)  # 1 where the maximum is\n"
       "np.put_along_axis(ctx.mask, i, 1.0, axis=dim)\n"
       "ctx.dim, ctx.keepdim = dim, keepdim\n"
       "out = np.take_along_axis(x.array, i, axis=dim)\n"
       "return out if keepdim else out.squeeze(dim)",
       PUT_BACK.replace("ctx.dim is not None and ", "") +
       "return grad * minigrad.tensor(ctx.mask)",
       lambda x, dim=-1, keepdim=False: x.max(dim, keepdim=keepdim).values, (DISTINCT,),
       second=False,
       hint={"en": "The grader draws x without ties, so that the maximum is one element.",
             "zh": "评分时 x 中没有相等的元素，所以最大值只在一个位置。"}),
    Op("softmax", "Softmax", "along", "x, dim=-1",
       {"en": "y = exp(x) / sum(exp(x)) along dim;   dx = y * (grad - sum(grad * y) along dim)",
        "zh": "y = exp(x) / sum(exp(x))，沿 dim 求和;   "
              "dx = y * (grad - sum(grad * y))，同样沿 dim"},
       {"en": "The softmax of x along dimension `dim`: positive values that sum to 1.",
        "zh": "x 沿 `dim` 这一维的 softmax：一组和为 1 的正数。"},
       "e = np.exp(x.array - x.array.max(axis=dim, keepdims=True))  # (no overflow)\n"
       + SAVE_X_DIM + "return e / e.sum(axis=dim, keepdims=True)",
       SOFTMAX_AGAIN + "return y * (grad - (grad * y).sum(ctx.dim, keepdim=True))",
       lambda x, dim=-1: x.softmax(dim)),
    Op("log_softmax", "LogSoftmax", "along", "x, dim=-1",
       {"en": "out = x - log(sum(exp(x))) along dim;   "
              "dx = grad - softmax(x) * sum(grad) along dim",
        "zh": "out = x - log(sum(exp(x)))，沿 dim 求和;   "
              "dx = grad - softmax(x) * sum(grad)，同样沿 dim"},
       {"en": "The log of the softmax of x along dimension `dim`, computed without overflow.",
        "zh": "x 沿 `dim` 这一维的 softmax 的对数，计算时不能溢出。"},
       "shifted = x.array - x.array.max(axis=dim, keepdims=True)\n"
       + SAVE_X_DIM + "return shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))",
       SOFTMAX_AGAIN + "return grad - y * grad.sum(ctx.dim, keepdim=True)",
       lambda x, dim=-1: x.log_softmax(dim)),
    Op("matmul", "MatMul", "matmul", "a, b",
       {"en": "out = a @ b;   da = grad @ b^T,   db = a^T @ grad (summed over a's batch)",
        "zh": "out = a @ b;   da = grad @ b^T,   db = a^T @ grad（a 带批次时对批次求和）"},
       {"en": "The matrix product a @ b.", "zh": "矩阵乘积 a @ b。"},
       "ctx.save_for_backward(a, b)\nreturn a.array @ b.array",
       "a, b = ctx.saved_tensors\n"
       "ga = grad @ b.transpose(-1, -2)\n"
       "gb = a.transpose(-1, -2) @ grad  # one (k, m) matrix per batch element of a\n"
       "return ga, gb.sum_to_size(b.shape)",
       lambda a, b: a @ b),
    Op("transpose", "Transpose", "transpose", "x, dim0=0, dim1=1",
       {"en": "out = x with dims dim0 and dim1 swapped;   dx = grad with them swapped back",
        "zh": "out = x 交换 dim0 和 dim1 两维;   dx = grad 再把这两维换回来"},
       {"en": "x with two of its dimensions swapped.", "zh": "把 x 的两个维度互换。"},
       "ctx.dims = (dim0, dim1)\nreturn np.swapaxes(x.array, dim0, dim1)",
       "return grad.transpose(*ctx.dims)",
       lambda x, dim0=0, dim1=1: x.transpose(dim0, dim1)),
    Op("reshape", "Reshape", "reshape", "x, shape",
       {"en": "out = the elements of x, in order, in a new shape;   dx = grad in x's shape",
        "zh": "out = x 的元素按原顺序排成新形状;   dx = grad 排回 x 的形状"},
       {"en": "x's elements, in the same order, in another shape.",
        "zh": "x 的元素按原来的顺序排成另一个形状。"},
       "ctx.shape = x.shape\nreturn x.array.reshape(shape)",
       "return grad.reshape(ctx.shape)",
       lambda x, shape: x.reshape(shape)),
]
