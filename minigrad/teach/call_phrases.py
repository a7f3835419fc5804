"""The sentences for calls that are no node of their own (einsum, tensordot, a checkpointed
block) and for what a checkpoint runs again, in English and Chinese (see explain_calls.py;
same keys in each language)."""

from __future__ import annotations

CALL_PHRASES: dict[str, dict[str, str]] = {
    "en": {
        "einsum_forward": "no node of its own: as PyTorch does, it lines up each operand's "
                          "dims (unsqueeze, diagonal, permute), multiplies and sums each pair "
                          "as one batched matrix product (bmm) and views the result back",
        "einsum_backward": "its backward is the backward of those pieces, last piece first: "
                           "views and permutes put the gradient back in each operand's "
                           "layout, BmmBackward0 sends grad @ B^T to the left operand and "
                           "A^T @ grad to the right one, and a label summed on its own gets "
                           "the gradient copied back along it",
        "tensordot_forward": "no node of its own: as PyTorch does, it permutes each operand so "
                             "that the summed dims meet, flattens both to matrices, multiplies "
                             "them (mm) and views the result back",
        "tensordot_backward": "its backward is the backward of those pieces: MmBackward0 sends "
                              "grad @ B^T and A^T @ grad, and the views and permutes give each "
                              "gradient its operand's shape back",
        "checkpoint_reentrant_forward": "use_reentrant=True: the block ran under no_grad, so "
                                        "none of its ops was recorded; one node stands for "
                                        "them and keeps only the block's inputs",
        "checkpoint_reentrant_backward": "its node runs the block again, with grad on and the "
                                         "random state of the forward, then a backward through "
                                         "that fresh graph: the parameters get their gradients "
                                         "there, the inputs' gradients go on from the node",
        "checkpoint_forward": "use_reentrant=False: its ops are recorded as usual, but what "
                              "they save for backward is not kept (a number stands for each "
                              "saved tensor)",
        "checkpoint_backward": "the first step that reads a value the block saved runs the "
                               "block again (with the random state of the forward) and every "
                               "saved value comes from that recomputation",
        "reran_label": "reruns",
        "reran": "the checkpointed block ({n} ops), to get back what they saved:",
        "reran_reentrant": "the checkpointed block with grad on ({n} ops):",
        "then_label": "then",
        "then": "backward through them from {root}, with the incoming gradient: {n} step{s}",
    },
    "zh": {
        "einsum_forward": "它自己不是一个节点：和 PyTorch 一样，先把每个操作数的维度对齐"
                          "（unsqueeze、diagonal、permute），再把每一对相乘求和写成一次批量矩阵乘"
                          "（bmm），最后用 view 还原形状",
        "einsum_backward": "它的反向传播就是这些零件的反向传播，从最后一个零件倒着来：view 和 "
                           "permute 把梯度还原成各操作数的布局，BmmBackward0 把 grad @ B^T "
                           "传给左操作数、A^T @ grad 传给右操作数；只在一个操作数里被求和的"
                           "下标，梯度沿着它复制回去",
        "tensordot_forward": "它自己不是一个节点：和 PyTorch 一样，先把每个操作数重排，让要求和的"
                             "维度对上，再压平成矩阵相乘（mm），最后用 view 还原形状",
        "tensordot_backward": "它的反向传播就是这些零件的反向传播：MmBackward0 传出 grad @ B^T "
                              "和 A^T @ grad，view 和 permute 再把梯度还原成各操作数的形状",
        "checkpoint_reentrant_forward": "use_reentrant=True：这个块在 no_grad 下运行，里面的运算"
                                        "一个都没有记录；只用一个节点代表它们，只保存块的输入",
        "checkpoint_reentrant_backward": "这个节点会在开启梯度、恢复前向时随机状态的情况下把块"
                                         "再算一遍，然后在这张新图上做一次反向传播：参数在那里"
                                         "得到梯度，输入的梯度再从这个节点往下传",
        "checkpoint_forward": "use_reentrant=False：里面的运算照常记录，但它们为反向传播保存的"
                              "张量不留下来（每个只记一个编号）",
        "checkpoint_backward": "第一个要读保存值的反向步骤会把块重新算一遍（恢复前向时的随机"
                               "状态），所有保存值都从这次重算中取回",
        "reran_label": "重算",
        "reran": "被 checkpoint 的块（{n} 个运算），取回它们保存的值：",
        "reran_reentrant": "开启梯度重算被 checkpoint 的块（{n} 个运算）：",
        "then_label": "然后",
        "then": "从 {root} 出发、以传入梯度为初始梯度，在它们上做反向传播：共 {n} 步",
    },
}
