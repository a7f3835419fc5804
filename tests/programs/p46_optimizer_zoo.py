"""d2l's optimization chapter and the Optimizing Model Parameters tutorial, run over every
optimizer torch.optim has: the same small regression from the same starting weights (no
random numbers: the losses can be printed), each optimizer's state after the steps, and
L-BFGS with its closure."""
import minigrad as torch
from minigrad import nn

x = torch.linspace(-1, 1, 16).reshape(8, 2)
y = x @ torch.tensor([[2.0], [-3.0]]) + 0.5


def fresh_model():
    model = nn.Linear(2, 1)
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[0.1, 0.2]]))
        model.bias.fill_(0.0)
    return model


def train(make, steps=25):
    model = fresh_model()
    optimizer = make(model.parameters())
    loss_fn = nn.MSELoss()
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
    return optimizer, loss_fn(model(x), y).item()


makers = {
    "SGD": lambda p: torch.optim.SGD(p, lr=0.1),
    "SGD nesterov": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True),
    "Adagrad": lambda p: torch.optim.Adagrad(p, lr=0.5),
    "RMSprop": lambda p: torch.optim.RMSprop(p, lr=0.05),
    "Adadelta": lambda p: torch.optim.Adadelta(p, lr=5.0),
    "Adam": lambda p: torch.optim.Adam(p, lr=0.1),
    "AdamW": lambda p: torch.optim.AdamW(p, lr=0.1, weight_decay=0.01),
    "Adamax": lambda p: torch.optim.Adamax(p, lr=0.2),
    "NAdam": lambda p: torch.optim.NAdam(p, lr=0.1),
    "RAdam": lambda p: torch.optim.RAdam(p, lr=0.1),
    "Rprop": lambda p: torch.optim.Rprop(p, lr=0.05),
    "ASGD": lambda p: torch.optim.ASGD(p, lr=0.1),
}
start = nn.MSELoss()(fresh_model()(x), y).item()
print("start", round(start, 4))
for name, make in makers.items():
    optimizer, loss = train(make)
    state = optimizer.state[optimizer.param_groups[0]["params"][0]]
    print(f"{name:13s} {loss:.4f} better: {loss < start}  state: {sorted(state)}")

optimizer, _ = train(makers["Adam"], steps=3)
print(optimizer.state_dict()["state"][0]["step"], optimizer.state_dict()["param_groups"][0]["lr"])
print(optimizer)

model = fresh_model()
lbfgs = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=20, line_search_fn="strong_wolfe")


def closure():
    lbfgs.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    return loss


for _ in range(3):
    lbfgs.step(closure)
print("LBFGS", round(closure().item(), 6), model.weight.detach().round(decimals=3),
      model.bias.detach().round(decimals=3))
print(lbfgs.state[model.weight]["func_evals"] > 0, lbfgs.state[model.weight]["n_iter"] > 3)
