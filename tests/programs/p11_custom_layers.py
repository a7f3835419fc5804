"""In the style of d2l's "custom layers": a layer without parameters, a layer with its own
nn.Parameters, both inside a Sequential."""
import minigrad as torch
from minigrad import nn
from minigrad.nn import functional as F


class CenteredLayer(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, X):
        return X - X.mean()


layer = CenteredLayer()
print(layer(torch.FloatTensor([1, 2, 3, 4, 5])))
net = nn.Sequential(nn.Linear(8, 128), CenteredLayer())
Y = net(torch.rand(4, 8))
print(abs(Y.mean().item()) < 1e-6)


class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units,))

    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)


linear = MyLinear(5, 3)
print(linear.weight.shape, linear.weight.requires_grad, linear.weight.is_leaf)
print(linear(torch.rand(2, 5)).shape, linear(torch.rand(2, 5)).requires_grad)
net = nn.Sequential(MyLinear(64, 8), MyLinear(8, 1))
print(net(torch.rand(2, 64)).shape)
print([name for name, _ in net.named_parameters()])
