"""nn.utils.rnn side by side with PyTorch: pad_sequence, pack_padded_sequence,
pad_packed_sequence, pack_sequence, unpad/unpack, PackedSequence's printed form and
methods, every error in PyTorch's words; RNN, LSTM and GRU over a PackedSequence give
PyTorch's outputs, final states and gradients (one or two layers, either direction, sorted or
not, with or without a given state). (Finite differences and gradgradcheck: the op table's
pack_*, pad_* and *_packed entries.)"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from compare import against_torch


def _seqs(lib):
    return [lib.tensor([1.0, 2.0, 3.0]), lib.tensor([4.0, 5.0]), lib.tensor([6.0])]


@pytest.mark.parametrize("call", [
    "rnn.pad_sequence(s)", "rnn.pad_sequence(s, batch_first=True, padding_value=-1)",
    "rnn.pad_sequence(s, batch_first=True, padding_side='left')", "rnn.pack_sequence(s)",
    "rnn.pack_sequence([s[1], s[0], s[2]], enforce_sorted=False)",
    "rnn.pad_packed_sequence(rnn.pack_sequence(s))",
    "rnn.pad_packed_sequence(rnn.pack_sequence([s[1], s[0], s[2]], enforce_sorted=False), "
    "batch_first=True, padding_value=9, total_length=5)",
    "rnn.pack_padded_sequence(rnn.pad_sequence(s, batch_first=True), lib.tensor([3, 2, 1]), "
    "batch_first=True)",
    "rnn.unpack_sequence(rnn.pack_sequence([s[1], s[0], s[2]], enforce_sorted=False))",
    "rnn.unpad_sequence(rnn.pad_sequence(s), lib.tensor([3, 2, 1]))",
    "rnn.invert_permutation(lib.tensor([2, 0, 1]))", "rnn.invert_permutation(None)",
    "rnn.pack_sequence(s).to(lib.float64).data.dtype", "len(rnn.pack_sequence(s))",
    "rnn.PackedSequence(lib.ones(3), lib.tensor([2, 1]))",
    "rnn.pack_sequence(s).is_cuda", "rnn.pack_sequence(s).double().data",
])
def test_results_and_printed_forms_are_torchs(call, torch_mod):
    printed = []
    for lib in (minigrad, torch_mod):
        env = {"rnn": lib.nn.utils.rnn, "s": _seqs(lib), "lib": lib}
        printed.append(repr(eval(call, env)).replace("torch", "minigrad"))
    assert printed[0] == printed[1]


@pytest.mark.parametrize("call", [
    "rnn.pad_sequence([lib.ones(3, 2), lib.ones(2, 3)])",
    "rnn.pad_sequence([lib.ones(2)], padding_side='middle')", "rnn.pad_sequence([])",
    "rnn.pack_sequence([lib.ones(1), lib.ones(2)])",
    "rnn.pad_packed_sequence(rnn.pack_sequence([lib.ones(3), lib.ones(1)]), total_length=2)",
    "rnn.pack_padded_sequence(lib.ones(3, 2), [2, 0])",
    "rnn.pack_padded_sequence(lib.ones(3, 2), [2, 1, 1])",
    "rnn.pack_padded_sequence(lib.ones(0, 2), [1, 1])",
])
def test_misuse_raises_torchs_error(call, torch_mod):
    caught = []
    for lib in (torch_mod, minigrad):
        with pytest.raises((RuntimeError, ValueError)) as error:
            eval(call, {"rnn": lib.nn.utils.rnn, "lib": lib})
        caught.append((type(error.value), str(error.value)))
    assert caught[1] == caught[0]


def test_a_length_past_the_input_is_refused_where_torch_reads_past_its_end():
    with pytest.raises(RuntimeError, match="a length \\(4\\) is longer than the input's 3 time "
                       "steps"):
        minigrad.nn.utils.rnn.pack_padded_sequence(minigrad.ones(3, 2), [4, 1])


@pytest.mark.parametrize("make", [
    lambda x, torch: torch.nn.utils.rnn.pack_padded_sequence(x, [3, 2, 1], batch_first=True)
    .data,
    lambda x, torch: torch.nn.utils.rnn.pack_padded_sequence(x, [2, 3, 1], batch_first=True,
                                                             enforce_sorted=False).data,
    lambda x, torch: torch.nn.utils.rnn.pad_packed_sequence(
        torch.nn.utils.rnn.pack_padded_sequence(x, [2, 3, 1], batch_first=True,
                                                enforce_sorted=False), batch_first=True)[0],
    lambda x, torch: torch.nn.utils.rnn.pad_packed_sequence(
        torch.nn.utils.rnn.pack_padded_sequence(x.transpose(0, 1), [3, 3, 1]),
        total_length=6)[0],
    lambda x, torch: torch.nn.utils.rnn.pad_sequence([x[0], x[1, :2], x[2, :1]]),
    lambda x, torch: torch.nn.utils.rnn.pack_sequence([x[0], x[1, :2], x[2, :1]]).data,
])
def test_packing_graphs_and_gradients_are_torchs(make, torch_mod):
    x = np.random.default_rng(0).standard_normal((3, 4, 2))
    report = against_torch(make, gradient="random", x=x)
    assert report.ok and report.graph.equal, str(report)


def _module(lib, kind, **options):
    lib.manual_seed(0)
    module = getattr(lib.nn, kind)(2, 3, batch_first=True, **options).double()
    with lib.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(lib.tensor(np.sin(np.arange(p.numel()) * 0.7 + i).reshape(p.shape)))
    return module


def _run(lib, kind, options, lengths, sort, x, with_state):
    module = _module(lib, kind, **options)
    x = lib.tensor(x, requires_grad=True)
    packed = lib.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True,
                                                   enforce_sorted=sort)
    layers = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
    state = None
    if with_state:
        h0 = lib.tensor(np.linspace(-1, 1, layers * 3 * 3).reshape(layers, 3, 3))
        state = (h0, h0 * 0.5) if kind == "LSTM" else h0
    out, h = module(packed, state)
    hs = h if isinstance(h, tuple) else (h,)
    padded, lengths_out = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
    weights = lib.tensor(np.cos(np.arange(padded.numel())).reshape(padded.shape))
    ((padded * weights).sum() + sum((t * t).sum() for t in hs)).backward()
    return ([out.data.detach().numpy(), x.grad.numpy(), lengths_out.numpy()]
            + [t.detach().numpy() for t in hs] + [p.grad.numpy() for p in module.parameters()],
            type(out).__name__, out.batch_sizes.tolist())


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("options", [{}, {"num_layers": 2}, {"bidirectional": True},
                                     {"num_layers": 2, "bidirectional": True}],
                         ids=["one", "two_layers", "bidirectional", "two_bidirectional"])
@pytest.mark.parametrize("lengths, sort, with_state", [([3, 2, 1], True, False),
                                                       ([2, 4, 1], False, True),
                                                       ([3, 3, 2], True, True)])
def test_recurrent_layers_over_packed_batches_are_torchs(kind, options, lengths, sort,
                                                         with_state, torch_mod):
    x = np.random.default_rng(1).standard_normal((3, 4, 2))
    ours = _run(minigrad, kind, options, lengths, sort, x, with_state)
    theirs = _run(torch_mod, kind, options, lengths, sort, x, with_state)
    assert ours[1:] == theirs[1:] == ("PackedSequence", theirs[2])
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_a_packed_batch_checks_its_state_and_input_size():
    lstm = minigrad.nn.LSTM(2, 3)
    packed = minigrad.nn.utils.rnn.pack_sequence([minigrad.ones(3, 2), minigrad.ones(1, 2)])
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 3\), got "
                       r"\[1, 1, 3\]"):
        lstm(packed, (minigrad.zeros(1, 1, 3), minigrad.zeros(1, 1, 3)))
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. "
                       "Expected 2, got 3"):
        lstm(minigrad.nn.utils.rnn.pack_sequence([minigrad.ones(2, 3)]))


def test_nn_utils_is_a_package_and_keeps_its_names():
    from minigrad.nn.utils import (
        GradRow,
        clip_grad_norm_,
        clip_grad_value_,
        grad_report,
        parameters_to_vector,
        vector_to_parameters,
    )
    from minigrad.nn.utils.rnn import PackedSequence

    assert all(callable(f) for f in (clip_grad_norm_, clip_grad_value_, grad_report,
                                     parameters_to_vector, vector_to_parameters))
    assert GradRow.__name__ == "GradRow" and PackedSequence._fields == (
        "data", "batch_sizes", "sorted_indices", "unsorted_indices")
    assert minigrad.nn.utils.rnn is minigrad.nn.utils.rnn and \
        minigrad.nn.utils.parametrize.cached
