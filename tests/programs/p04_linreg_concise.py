"""In the style of d2l's concise linear regression: TensorDataset and DataLoader, nn.Sequential,
initialising through .data, MSELoss, optim.SGD."""
import minigrad as torch
from minigrad import nn
from minigrad.utils import data

torch.manual_seed(1)
true_w = torch.tensor([2, -3.4])
true_b = 4.2
X = torch.normal(0, 1, (1000, 2))
y = (X @ true_w + true_b + torch.normal(0, 0.01, (1000,))).reshape((-1, 1))


def load_array(data_arrays, batch_size, is_train=True):
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)


batch_size = 10
data_iter = load_array((X, y), batch_size)
first_X, first_y = next(iter(data_iter))
print(first_X.shape, first_y.shape, len(data_iter))

net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
print(net)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)

num_epochs = 3
for epoch in range(num_epochs):
    for Xb, yb in data_iter:
        l = loss(net(Xb), yb)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(X), y)
    print(f'epoch {epoch + 1}, loss small: {l.item() < 0.001}')

w = net[0].weight.data
print('w error small:', bool((true_w - w.reshape(true_w.shape)).abs().max() < 0.01))
b = net[0].bias.data
print('b error small:', bool((true_b - b).abs().max() < 0.01))
print(type(w).__name__, w.requires_grad, net[0].weight.grad is not None)
