"""`trace(...).explain()` narrates a convolution and a pooling step with their rules, in English
and in Chinese; the words come from the op classes and the phrase book."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F


@pytest.fixture
def conv_pool_trace():
    x = mg.tensor(np.arange(16.0).reshape(1, 1, 4, 4) / 10, requires_grad=True, name="x")
    w = mg.tensor(np.ones((1, 1, 2, 2)) / 4, requires_grad=True, name="w")
    return mg.trace(lambda: F.max_pool2d(F.conv2d(x, w, padding=1, stride=2), 2).sum())


def test_english(conv_pool_trace):
    text = conv_pool_trace.explanation()
    assert "t1   = conv2d(x, w, stride=(2, 2), padding=(1, 1))" in text
    assert "max_pool2d(t1, kernel_size=(2, 2))" in text
    assert "dx = col2im(W^T @ grad) ;  dW = grad @ im2col(x)^T" in text  # (no bias: no db)
    assert ("each output is a dot product of the kernel with one window of the input; the "
            "gradient of the input adds each window's share back (col2im)") in text
    assert "(the gradient goes to the max of each window)" in text
    assert "to x      col2im(W^T @ grad) = " in text
    assert "to w      grad @ im2col(x)^T = " in text


def test_chinese(conv_pool_trace):
    text = conv_pool_trace.explanation(lang="zh")
    assert "求导法则  dx = col2im(W^T @ grad)" in text
    assert ("每个输出都是卷积核与输入中一个窗口的点积；"
            "输入的梯度把每个窗口分到的那一份加回原处") in text
    assert "（梯度只流向每个窗口里的最大值）" in text
    assert "传给 x    col2im(W^T @ grad) = " in text


def test_the_other_layers_have_their_remarks_in_both_languages():
    x = mg.tensor(np.linspace(-1, 1, 24).reshape(2, 3, 4), requires_grad=True, name="x")
    t = mg.trace(lambda: F.avg_pool1d(F.batch_norm(x, None, None, training=True), 2).sum())
    assert "each input's gradient loses its share of the mean" in t.explanation()
    zh = t.explanation(lang="zh")
    assert "均值和方差取决于整批数据中的每个元素" in zh
    assert "它的梯度由窗口内的元素平分" in zh
