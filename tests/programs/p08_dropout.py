"""In the style of d2l's dropout section: dropout by hand with a random mask, and nn.Dropout
in train and eval mode."""
import minigrad as torch
from minigrad import nn


def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    if dropout == 1:
        return torch.zeros_like(X)
    if dropout == 0:
        return X
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)


X = torch.arange(16, dtype=torch.float32).reshape((2, 8))
print(X)
print(dropout_layer(X, 0.))
print(dropout_layer(X, 1.))
half = dropout_layer(X, 0.5)
print(half.shape, bool(((half == 0) | (half == 2 * X)).all()))

net = nn.Sequential(nn.Flatten(), nn.Linear(8, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 2))
print(net)
net.eval()
print(torch.equal(net(X), net(X)), net.training, net[3].training)
net.train()
out = net[3](torch.ones(1000))
print(out.shape, bool(((out == 0) | (out == 2)).all()), 300 < int((out == 0).sum()) < 700)
