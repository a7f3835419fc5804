"""In the style of "What is torch.nn really?", the CNN part: three strided convolutions,
F.avg_pool2d, view, then the same as nn.Sequential with a Lambda and AdaptiveAvgPool2d."""
import minigrad as torch
import minigrad.nn.functional as F
from minigrad import nn, optim

torch.manual_seed(0)
prototypes = torch.rand(10, 784)
y = torch.randint(0, 10, (128,))
x = prototypes[y] + 0.2 * torch.randn(128, 784)


class Mnist_CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1)
        self.conv3 = nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1)

    def forward(self, xb):
        xb = xb.view(-1, 1, 28, 28)
        xb = F.relu(self.conv1(xb))
        xb = F.relu(self.conv2(xb))
        xb = F.relu(self.conv3(xb))
        xb = F.avg_pool2d(xb, 4)
        return xb.view(-1, xb.size(1))


model = Mnist_CNN()
print(model)
out = model(x[:8])
print(out.shape, out.grad_fn.name(), model.conv1.weight.shape, model.conv1.bias.shape)
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
first = F.cross_entropy(model(x), y).item()
for step in range(10):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
print('loss fell:', loss.item() < first)


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


model = nn.Sequential(
    Lambda(lambda x: x.view(-1, 1, 28, 28)),
    nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    Lambda(lambda x: x.view(x.size(0), -1)),
)
print(model(x[:4]).shape, len(model), model[6])
