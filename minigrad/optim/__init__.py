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

# -- the rest of torch.optim (issue 36: d2l's chapter on optimization uses them) ------------
from minigrad.optim.adadelta_rprop import ASGD, Adadelta, Rprop  # noqa: E402
from minigrad.optim.adam_variants import Adamax, NAdam, RAdam  # noqa: E402
from minigrad.optim.lbfgs import LBFGS  # noqa: E402

__all__ += ["Adadelta", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD", "LBFGS"]
