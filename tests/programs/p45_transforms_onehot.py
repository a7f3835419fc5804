"""The Transforms tutorial's target transform, and the Tensors tutorial's in-place and out=
forms: a label made one-hot with scatter_ at a 0-d index, F.one_hot for a batch, a
hand-written ToTensor/Normalize, and results written into tensors the caller made
(torch.matmul(..., out=...), torch.mul(..., out=...))."""
import minigrad as torch
import minigrad.nn.functional as F


def target_transform(y):
    return torch.zeros(10, dtype=torch.float).scatter_(0, torch.tensor(y), value=1)


print(target_transform(3))
print(target_transform(9).argmax().item(), target_transform(0).sum())
labels = torch.tensor([2, 0, 1])
print(F.one_hot(labels, num_classes=4))
print(F.one_hot(input=labels).shape)
stacked = torch.stack([target_transform(int(y)) for y in labels])
print(stacked.shape, torch.equal(stacked.argmax(1), labels))

# a ToTensor and Normalize by hand: uint8 HWC image to float CHW in [0, 1], then standardised
image = torch.arange(2 * 3 * 3, dtype=torch.uint8).reshape(3, 3, 2) * 14
tensor = image.permute(dims=(2, 0, 1)).float().div(255)
print(tensor.shape, tensor.dtype, tensor.min().item(), round(tensor.max().item(), 4))
mean = tensor.mean(dim=(1, 2), keepdim=True)
std = tensor.std(dim=(1, 2), keepdim=True)
normalized = (tensor - mean) / std
print(normalized.mean(dim=(1, 2)).abs().max() < 1e-6, normalized.shape)

tensor = torch.ones(4, 4)
tensor[:, 1] = 0
print(f"First row: {tensor[0]}")
print(f"Last column: {tensor[..., -1]}")
y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
y3 = torch.rand_like(y1)
torch.matmul(tensor, tensor.T, out=y3)
z1 = tensor * tensor
z3 = torch.rand_like(tensor)
result = torch.mul(tensor, tensor, out=z3)
print(torch.equal(y1, y3), torch.equal(y2, y3), torch.equal(z1, z3), result is z3)
tensor.add_(5)
short = torch.empty(2)
torch.add(torch.ones(3), 1, out=short)
print(short, short.shape)
values, indices = torch.empty(0), torch.empty(0, dtype=torch.long)
print(torch.max(tensor, 1, out=(values, indices)))
