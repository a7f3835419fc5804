"""explain() of calls that are no node of their own (einsum, tensordot) and of checkpointed
blocks: a heading over their ops and over their backward steps says what they are; the step
that runs a checkpointed block again lists the ops it reran and, for the reentrant variant,
the backward it ran through them; the block's copies of its inputs are no leaves of the user's.
"""

from __future__ import annotations

import minigrad
from minigrad.utils.checkpoint import checkpoint


def _ab():
    a = minigrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True, name="A")
    b = minigrad.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], requires_grad=True, name="B")
    return a, b


def test_einsum_gets_a_heading_over_its_pieces_and_its_backward():
    a, b = _ab()
    text = minigrad.trace(lambda: minigrad.einsum("ij,jk->ik", a, b).sum()).explanation(
        timing=False)
    forward, backward = text.split("Backward pass")
    assert forward.count(" ▸ einsum('ij,jk->ik', A, B): no node of its own") == 1
    assert "BmmBackward0" in forward and "t12  = t11.view(2, 2)" in forward
    assert backward.count(" ▸ einsum('ij,jk->ik', A, B): its backward is the backward of") == 1
    assert "sends grad @ B^T to the left operand" in " ".join(backward.split())
    assert "A.grad = tensor([[1., 1., 2.]," in text and "Summary: 13 operations" in text


def test_two_einsums_get_two_headings_and_tensordot_its_own():
    a, b = _ab()
    text = minigrad.trace(lambda: (minigrad.einsum("ij,jk->ik", a, b).sum()
                                   + minigrad.einsum("ij->", a)
                                   + minigrad.tensordot(a, b, dims=1).sum())).explanation()
    forward = text.split("Backward pass")[0]
    assert forward.count("▸ einsum('ij,jk->ik', A, B)") == 1
    assert forward.count("▸ einsum('ij->', A)") == 1
    assert forward.count("▸ tensordot(A, B): no node of its own") == 1


def test_the_chinese_narration_names_the_same_calls():
    a, b = _ab()
    text = minigrad.trace(lambda: minigrad.einsum("ij,jk->ik", a, b).sum()).explanation(
        lang="zh")
    assert "▸ einsum('ij,jk->ik', A, B): 它自己不是一个节点" in text
    assert "BmmBackward0 把 grad @ B^T 传给左操作数" in "".join(text.split("\n   "))


def _block_inputs():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    w = minigrad.tensor([0.5, -1.0], requires_grad=True, name="w")
    return x, w, lambda t: (t * w).tanh()


def test_a_reentrant_checkpoint_step_shows_the_rerun_and_the_backward_inside_it():
    x, w, block = _block_inputs()
    trace = minigrad.trace(lambda: checkpoint(block, x, use_reentrant=True).sum())
    text = trace.explanation(timing=False, lines=False)
    forward = text.split("Backward pass")[0]
    assert "Forward pass: 2 operations" in forward and "MulBackward0" not in forward
    assert "t1   = checkpoint(<lambda>, x)  CheckpointFunctionBackward" in forward
    assert "the block ran under no_grad, so none of its ops was" in forward
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "step 2  CheckpointFunctionBackward" in line)
    assert "reruns    the checkpointed block with grad on (2 ops):" in lines[at + 3]
    assert lines[at + 4].split() == ["t2", "=", "x'", "*", "w", "MulBackward0", "tensor([",
                                     "0.5000,", "-2.0000])"]
    assert "then      backward through them from t3, with the incoming gradient: 4 steps" \
        in lines[at + 6]
    assert "step 4  AccumulateGrad w.grad = tensor([0.7864, 0.1413])   (was None)" in text
    assert "to x      tensor([ 0.3932, -0.0707])" in text
    assert [leaf.label for leaf in trace.leaves] == ["x", "w"]
    assert "Summary: 2 operations, 3 backward steps, 2 leaves" in text
    assert w.grad.tolist() == [0.7864477038383484, 0.14130163192749023]


def test_a_non_reentrant_checkpoint_shows_the_rerun_in_the_step_that_needed_it():
    x, w, block = _block_inputs()
    text = minigrad.trace(lambda: checkpoint(block, x, use_reentrant=False).sum()).explanation(
        timing=False)
    forward, backward = text.split("Backward pass")
    assert "Forward pass: 3 operations" in forward and "use_reentrant=False" in forward
    step2 = backward.split("step 2")[1].split("step 3")[0]
    assert "reruns    the checkpointed block (2 ops), to get back what they saved:" in step2
    assert "t3 = x' * w" in step2 and "t4 = t3.tanh()" in step2
    assert "Leaves: x.grad = tensor([ 0.3932, -0.0707]), w.grad = tensor([0.7864, 0.1413])" \
        in text


def test_the_player_and_the_drawing_still_take_a_checkpointed_trace():
    x, w, block = _block_inputs()
    trace = minigrad.trace(lambda: checkpoint(block, x, use_reentrant=True).sum())
    page = trace.to_html()
    assert "CheckpointFunctionBackward" in page
    assert "CheckpointFunctionBackward" in trace.to_dot().source
