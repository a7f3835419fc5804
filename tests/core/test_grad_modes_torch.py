"""Issue 35: grad modes as PyTorch's. Its context managers wrap a generator function so that
the body runs in the mode each time it resumes, while the code that drives it keeps its own
(minigrad's set the mode only while the generator object was made: `@no_grad()` left grad
mode on inside); `set_grad_enabled` takes a bool only; `inference_mode` makes inference
tensors, which autograd refuses to save and which may not be changed in place outside it.
Every case runs side by side with PyTorch.
"""

from __future__ import annotations

import pytest

from side_by_side import same


def _decorator(t, name: str):
    """The decorator `name` of library t (made on demand: `set_grad_enabled(False)` switches
    grad mode off as soon as it is made, until it decorates something)."""
    return {
        "@no_grad()": lambda: t.no_grad(), "@no_grad": lambda: t.no_grad,
        "@enable_grad()": lambda: t.enable_grad(),
        "@set_grad_enabled(False)": lambda: t.set_grad_enabled(False),
        "@inference_mode()": lambda: t.inference_mode(),
        "@inference_mode": lambda: t.inference_mode,
        "@inference_mode(False)": lambda: t.inference_mode(False),
    }[name]()


DECORATORS = ["@no_grad()", "@no_grad", "@enable_grad()", "@set_grad_enabled(False)",
              "@inference_mode()", "@inference_mode", "@inference_mode(False)"]


def _modes(t):
    return t.is_grad_enabled(), t.is_inference_mode_enabled()


def drive(t, decorator: str, outer_grad: bool):
    """What a decorated generator sees at each step, and what its caller sees in between:
    next(), send(), throw() caught inside, and the value it returns."""
    log = []

    @_decorator(t, decorator)
    def steps():
        got = yield _modes(t)
        log.append(("sent", got, _modes(t)))
        try:
            yield _modes(t)
        except KeyError:
            log.append(("caught", _modes(t)))
        yield _modes(t)
        return "done"

    with t.set_grad_enabled(outer_grad):
        gen = steps()
        log.append(("first", next(gen), _modes(t)))
        log.append(("second", gen.send(7), _modes(t)))
        log.append(("thrown", gen.throw(KeyError("k")), _modes(t)))
        try:
            next(gen)
        except StopIteration as stop:
            log.append(("returned", stop.value, _modes(t)))
    return log


@pytest.mark.parametrize("outer_grad", [True, False])
@pytest.mark.parametrize("decorator", DECORATORS)
def test_a_decorated_generator_runs_in_the_mode_and_its_caller_in_its_own(decorator, outer_grad,
                                                                           torch_mod):
    ours, theirs = same(lambda t: drive(t, decorator, outer_grad), torch_mod)
    assert ours == theirs


def test_closing_a_decorated_generator_runs_its_finally_in_the_mode(torch_mod):
    def run(t):
        seen = []

        @t.no_grad()
        def steps():
            try:
                yield 1
            finally:
                seen.append(t.is_grad_enabled())
        gen = steps()
        next(gen)
        gen.close()
        return seen, t.is_grad_enabled()
    ours, theirs = same(run, torch_mod)
    assert ours == theirs


def test_a_decorated_method_and_a_plain_function_still_work(torch_mod):
    def run(t):
        class Model:
            @t.no_grad()
            def predict(self, x):
                return (x * 2).requires_grad, t.is_grad_enabled()
        x = t.ones(2, requires_grad=True)
        return Model().predict(x), t.is_grad_enabled()
    ours, theirs = same(run, torch_mod)
    assert ours == theirs


@pytest.mark.parametrize("mode", ["yes", 1, None, 0.0])
def test_set_grad_enabled_takes_a_bool_only(mode, torch_mod):
    def run(t):
        try:
            t.set_grad_enabled(mode)
        finally:
            grad = t.is_grad_enabled()
        return grad
    ours, theirs = same(run, torch_mod)
    assert ours == theirs and ours[0] == "TypeError"


def _inference_tensor(t):
    with t.inference_mode():
        return t.ones(2)


INFERENCE = {
    "is_inference": lambda t, x, w: (x.is_inference(), t.ones(1).is_inference()),
    "x * w saves x": lambda t, x, w: x * w,
    "x + w saves nothing": lambda t, x, w: x + w,
    "a detached inference tensor is one too": lambda t, x, w: w.exp() * x.detach(),
    "Linear saves its input": lambda t, x, w: t.nn.Linear(2, 2)(x),
    "x.add_(1) outside": lambda t, x, w: x.add_(1),
    "x[0] = 1 outside": lambda t, x, w: x.__setitem__(0, 1.0),
    "x.add_(1) under no_grad": lambda t, x, w: t.no_grad()(lambda: x.add_(1))(),
    "x.requires_grad_() outside": lambda t, x, w: x.requires_grad_(),
    "a view is one too": lambda t, x, w: x.view(2).is_inference(),
    "a clone is a normal tensor": lambda t, x, w: (x.clone().is_inference(),
                                                   (x.clone() * w).requires_grad),
    "inside, all is allowed": lambda t, x, w: t.inference_mode()(
        lambda: (x.add_(1), x.requires_grad_().requires_grad, _modes(t)))(),
    "inference_mode(False) inside": lambda t, x, w: t.inference_mode()(
        lambda: t.inference_mode(False)(lambda: (_modes(t), t.ones(1).is_inference()))())(),
}


@pytest.mark.parametrize("name", sorted(INFERENCE))
def test_inference_tensors_as_pytorch(name, torch_mod):
    def run(t):
        x, w = _inference_tensor(t), t.ones(2, requires_grad=True)
        return INFERENCE[name](t, x, w), x.tolist(), _modes(t)
    ours, theirs = same(run, torch_mod)
    assert ours == theirs


REQUIRES_GRAD = {  # PyTorch has three wordings for an integer tensor that should require grad
    "requires_grad_()": lambda t: t.tensor([1, 2]).requires_grad_(),
    "requires_grad = True": lambda t: setattr(t.tensor([1, 2]), "requires_grad", True),
    "a factory's requires_grad=True": lambda t: t.ones(2, dtype=t.int64, requires_grad=True),
    "a legacy tensor's requires_grad_()": lambda t: t.LongTensor([1, 2]).requires_grad_(),
}


@pytest.mark.parametrize("name", sorted(REQUIRES_GRAD))
def test_an_integer_tensor_that_should_require_grad_is_refused_in_pytorchs_words(name, torch_mod):
    ours, theirs = same(REQUIRES_GRAD[name], torch_mod)
    assert ours == theirs
