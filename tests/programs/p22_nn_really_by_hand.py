"""In the style of "What is torch.nn really?", first part: logistic regression on synthetic
'digit' images with tensors only: weights initialised by hand, log_softmax written out,
negative log-likelihood by indexing, accuracy, and the update under no_grad."""
import math

import minigrad as torch

torch.manual_seed(0)
classes, n = 10, 500
prototypes = torch.rand(classes, 784)
y_train = torch.randint(0, classes, (n,))
x_train = prototypes[y_train] + 0.3 * torch.randn(n, 784)
print(x_train.shape, y_train.shape, y_train.dtype, y_train.min() >= 0, y_train.max() < 10)

weights = torch.randn(784, 10) / math.sqrt(784)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


bs = 64
xb = x_train[0:bs]
preds = model(xb)
print(preds[0].shape, preds.shape, preds.grad_fn.name())


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


loss_func = nll
yb = y_train[0:bs]


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


start = loss_func(preds, yb).item()
lr, epochs = 0.5, 3
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
print('loss fell:', loss_func(model(xb), yb).item() < start,
      'accuracy above 0.9:', accuracy(model(x_train), y_train).item() > 0.9)
