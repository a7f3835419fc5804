"""Grad mode belongs to a thread, as in PyTorch 2.13 (anomaly mode is process-wide there and
here): no_grad in one thread leaves another recording, and a new thread starts recording."""

from __future__ import annotations

import threading

import pytest

import minigrad

torch = pytest.importorskip("torch")


def in_thread(fn):
    out = {}
    worker = threading.Thread(target=lambda: out.update(value=fn()))
    worker.start()
    worker.join()
    return out["value"]


@pytest.mark.parametrize("lib", [torch, minigrad], ids=["torch", "minigrad"])
def test_no_grad_in_one_thread_does_not_reach_another(lib):
    x = lib.ones(2, requires_grad=True)
    with lib.no_grad():
        assert in_thread(lambda: ((x * 2).requires_grad, lib.is_grad_enabled())) == (True, True)
        assert not (x * 2).requires_grad

    def worker():
        with lib.no_grad():
            barrier.wait()  # the main thread records while this one is in no_grad
            barrier.wait()
            return (x * 2).requires_grad

    barrier = threading.Barrier(2)
    result = {}
    t = threading.Thread(target=lambda: result.update(value=worker()))
    t.start()
    barrier.wait()
    recorded_here = (x * 3).requires_grad
    barrier.wait()
    t.join()
    assert recorded_here and result["value"] is False


@pytest.mark.parametrize("lib", [torch, minigrad], ids=["torch", "minigrad"])
def test_anomaly_mode_is_one_switch_for_the_process(lib):
    lib.autograd.set_detect_anomaly(True)
    try:
        assert in_thread(lib.is_anomaly_enabled) is True
    finally:
        lib.autograd.set_detect_anomaly(False)


def test_a_backward_in_each_of_two_threads():
    results = []

    def train(seed):
        w = minigrad.tensor([float(seed)], requires_grad=True)
        for _ in range(50):
            loss = ((w - 3.0) ** 2).sum()
            loss.backward()
            with minigrad.no_grad():
                w -= 0.1 * w.grad
            w.grad = None
        results.append(round(w.item(), 3))

    threads = [threading.Thread(target=train, args=(s,)) for s in (0, 10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [3.0, 3.0]
