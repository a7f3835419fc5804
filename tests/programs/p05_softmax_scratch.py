"""In the style of d2l's "softmax regression from scratch": softmax by hand with keepdim sums,
cross-entropy by picking y_hat[range(n), y], accuracy with argmax(axis=1) and .type()."""
import minigrad as torch

X = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(X.sum(0, keepdim=True), X.sum(1, keepdim=True))


def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdim=True)
    return X_exp / partition


X = torch.tensor([[0.1, -0.4, 2.0, 0.3, 0.0], [1.5, 0.2, -0.7, 0.0, 0.9]])
X_prob = softmax(X)
print(X_prob.shape, torch.allclose(X_prob.sum(1), torch.ones(2)))

y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print(y_hat[[0, 1], y])


def cross_entropy(y_hat, y):
    return - torch.log(y_hat[range(len(y_hat)), y])


print(cross_entropy(y_hat, y))


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


print(accuracy(y_hat, y) / len(y))

W = torch.normal(0, 0.01, size=(4, 3), requires_grad=True)
b = torch.zeros(3, requires_grad=True)
features = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]] * 10)
labels = torch.tensor([0, 1, 2] * 10)
for step in range(200):
    y_hat = softmax(torch.matmul(features.reshape((-1, W.shape[0])), W) + b)
    loss = cross_entropy(y_hat, labels).mean()
    loss.backward()
    with torch.no_grad():
        W -= 0.5 * W.grad
        b -= 0.5 * b.grad
        W.grad.zero_()
        b.grad.zero_()
print('train accuracy', accuracy(y_hat, labels) / len(labels), 'loss small', loss.item() < 0.1)
