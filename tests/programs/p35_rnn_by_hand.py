"""In the style of d2l's "RNN from scratch": one-hot inputs, a hidden state carried over time
steps, outputs concatenated, gradient clipping by hand, and a few steps of training."""
import minigrad as torch
import minigrad.nn.functional as F

torch.manual_seed(0)
vocab_size, num_hiddens, T, batch = 6, 16, 5, 3
print(F.one_hot(torch.tensor([0, 2]), vocab_size))


def get_params(vocab_size, num_hiddens):
    num_inputs = num_outputs = vocab_size

    def normal(shape):
        return torch.randn(size=shape) * 0.01

    W_xh = normal((num_inputs, num_hiddens))
    W_hh = normal((num_hiddens, num_hiddens))
    b_h = torch.zeros(num_hiddens)
    W_hq = normal((num_hiddens, num_outputs))
    b_q = torch.zeros(num_outputs)
    params = [W_xh, W_hh, b_h, W_hq, b_q]
    for param in params:
        param.requires_grad_(True)
    return params


def rnn(inputs, state, params):
    W_xh, W_hh, b_h, W_hq, b_q = params
    H, = state
    outputs = []
    for X in inputs:
        H = torch.tanh(torch.mm(X, W_xh) + torch.mm(H, W_hh) + b_h)
        Y = torch.mm(H, W_hq) + b_q
        outputs.append(Y)
    return torch.cat(outputs, dim=0), (H,)


def grad_clipping(params, theta):
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm


params = get_params(vocab_size, num_hiddens)
X = torch.arange(T * batch).reshape((batch, T)) % vocab_size
Y = (X + 1) % vocab_size
state = (torch.zeros((batch, num_hiddens)),)
inputs = F.one_hot(X.T, vocab_size).type(torch.float32)
print(inputs.shape, inputs.dtype)
out, new_state = rnn(inputs, state, params)
print(out.shape, len(new_state), new_state[0].shape)
first = None
for step in range(100):
    out, _ = rnn(inputs, state, params)
    loss = F.cross_entropy(out, Y.T.reshape(-1))
    first = first or loss.item()
    for p in params:
        p.grad = None
    loss.backward()
    grad_clipping(params, 1)
    with torch.no_grad():
        for p in params:
            p -= 1.0 * p.grad
print('loss fell:', loss.item() < first / 2, out.grad_fn.name())
