"""`minigrad.optim`: optimizers that update parameters from their `.grad` (as torch.optim).

    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    opt.zero_grad(); loss.backward(); opt.step()
"""

from minigrad.optim.adam import Adam, AdamW
from minigrad.optim.optimizer import Optimizer
from minigrad.optim.sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]

# -- RMSprop, Adagrad, learning-rate schedulers (issue 19) -------------------------------------
from minigrad.optim import lr_scheduler  # noqa: E402
from minigrad.optim.rmsprop import Adagrad, RMSprop  # noqa: E402

__all__ += ["RMSprop", "Adagrad", "lr_scheduler"]
