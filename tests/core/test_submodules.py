"""`import minigrad` alone reaches the submodules a PyTorch program uses, and stays light."""

import subprocess
import sys

import minigrad


def test_submodules_after_a_plain_import():
    assert minigrad.testing.gradcheck is not None
    assert callable(minigrad.nn.functional.relu)
    assert minigrad.autograd.graph.Node is minigrad.autograd.node.Node
    assert minigrad.autograd.Function is minigrad.Function
    assert callable(minigrad.autograd.grad) and callable(minigrad.autograd.backward)
    assert minigrad.backends.cudnn.is_available() is False


def test_import_minigrad_does_not_import_hypothesis_or_testing():
    code = ("import sys, minigrad; "
            "print('hypothesis' in sys.modules, 'minigrad.testing' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]


def test_an_unknown_attribute_is_an_attribute_error():
    try:
        minigrad.no_such_thing  # noqa: B018
    except AttributeError as e:
        assert str(e) == "module 'minigrad' has no attribute 'no_such_thing'"
    else:
        raise AssertionError("no AttributeError")
