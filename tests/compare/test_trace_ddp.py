"""compare.trace_torch on a DistributedDataParallel model: two local processes (gloo), and
every gradient bucket's all-reduce told between the backward steps."""

from __future__ import annotations

import numpy as np
import pytest

from compare.trace_ddp import DistributedTrace, watch_buckets


@pytest.fixture(scope="module")
def ranks(torch_mod):
    from compare.ddp_example import trace_on_two_processes

    return trace_on_two_processes(timeout=60)


def test_every_bucket_all_reduce_is_named_after_its_step(ranks):
    for result in ranks:
        buckets = result["allreduces"]
        assert [(b.index, b.params) for b in buckets] == [
            (0, ["module.2.weight", "module.2.bias"]), (1, ["module.0.weight", "module.0.bias"])]
        steps = {label: index for index, name, label in result["steps"]
                 if name == "AccumulateGrad"}
        for bucket in buckets:  # launched once the last of its gradients was accumulated
            assert bucket.after_step == max(steps[p] for p in bucket.params)
            assert 0 <= bucket.launched <= bucket.done
        text = result["explanation"]
        for bucket in buckets:
            line = (f"all-reduce  bucket {bucket.index} ({', '.join(bucket.params)}): its "
                    "gradients are ready, so DDP starts averaging them over the 2 processes "
                    "(gloo) while backward goes on")
            assert line in text
            # told right after its step, before the next one
            after = text.index(line)
            step_line = text.rindex(f"  step {bucket.after_step} ", 0, after)
            assert "step" not in text[step_line + 10:after].replace("AccumulateGrad", "")
        assert "Distributed: DDP on 2 processes (gloo) added 2 all-reduces to this backward" \
            in text and "(bucket 0 after step 5, bucket 1 after step 10)" in text
        zh = result["explanation_zh"]
        assert "all-reduce  第 1 个桶（module.0.weight、module.0.bias）" in zh
        assert "（第 0 个桶在第 5 步之后，第 1 个桶在第 10 步之后）" in zh  # no ASCII comma
        assert "module.0.weight.grad：本进程 形状 (8, 4)，范数 " in zh


def test_the_all_reduce_averages_the_two_processes_gradients(ranks):
    for i in range(2):
        mine, other = ranks[0]["allreduces"][i], ranks[1]["allreduces"][i]
        for a, b, mean, mean1 in zip(mine.local, other.local, mine.mean, other.mean):
            assert not np.array_equal(a, b)  # each process had its own batch
            np.testing.assert_allclose(mean, (a + b) / 2, rtol=1e-6, atol=1e-7)
            assert np.array_equal(mean, mean1)
    for result in ranks:  # .grad ends as the mean, and the trace says so
        means = {n: m for b in result["allreduces"] for n, m in zip(b.params, b.mean)}
        for name, grad in result["grads"].items():
            assert np.array_equal(grad, means[name])
            assert np.array_equal(result["leaf_grads"][name], grad)


def test_a_model_with_its_own_comm_hook_is_said_to_hide_them():
    class Own:
        _comm_hooks = [(lambda state, bucket: None, None)]

    with watch_buckets(Own(), {}) as seen:
        assert seen is None
    t = DistributedTrace()
    assert t.explanation(timing=False).splitlines()[-1] == (
        "Distributed: this DDP model has its own communication hook (register_comm_hook), so "
        "trace_torch could not watch its all-reduces.")
