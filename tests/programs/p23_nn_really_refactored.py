"""In the style of "What is torch.nn really?", refactored: F.cross_entropy, an nn.Module with
nn.Linear, optim, TensorDataset and DataLoader, a validation set under no_grad, fit()."""
import numpy as np

import minigrad as torch
import minigrad.nn.functional as F
from minigrad import nn, optim
from minigrad.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
rng = np.random.default_rng(0)
prototypes = rng.random((10, 784)).astype(np.float32)
labels = rng.integers(0, 10, 700)
images = prototypes[labels] + 0.3 * rng.standard_normal((700, 784)).astype(np.float32)
x_train, y_train, x_valid, y_valid = map(
    torch.tensor, (images[:500], labels[:500], images[500:], labels[500:]))
print(x_train.shape, y_train.dtype, x_valid.shape)
loss_func = F.cross_entropy


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(784, 10)

    def forward(self, xb):
        return self.lin(xb)


def get_model():
    model = Mnist_Logistic()
    return model, optim.SGD(model.parameters(), lr=0.5)


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


def get_data(train_ds, valid_ds, bs):
    return (DataLoader(train_ds, batch_size=bs, shuffle=True),
            DataLoader(valid_ds, batch_size=bs * 2))


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
        print(epoch, 'validation loss below 0.5:', val_loss < 0.5)


train_ds = TensorDataset(x_train, y_train)
valid_ds = TensorDataset(x_valid, y_valid)
print(len(train_ds), len(train_ds[0]), train_ds[0][0].shape)
train_dl, valid_dl = get_data(train_ds, valid_ds, 64)
print(len(train_dl), len(valid_dl))
model, opt = get_model()
fit(3, model, loss_func, opt, train_dl, valid_dl)
print(model)


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


seq = nn.Sequential(Lambda(lambda x: x.view(-1, 784)), nn.Linear(784, 10))
print(seq(x_valid[:3]).shape)
