"""dtypes as a learner meets them: aliases, legacy constructors, .type(), .to(), promotion,
the default dtype, and is_floating_point."""
import numpy as np

import minigrad as torch

print(torch.float, torch.double, torch.long, torch.int, torch.half, torch.bool)
print(torch.float == torch.float32, torch.long is torch.int64)
a = torch.tensor([1, 2, 3])
b = torch.tensor([1.0, 2.0])
print(a.dtype, b.dtype, torch.tensor([True]).dtype, torch.tensor(np.array([1.5])).dtype)
print(a.float().dtype, a.double().dtype, b.long(), b.int().dtype, b.bool(), b.half().dtype)
print(a.type(), b.type(), a.type(torch.float64).dtype)
print(torch.FloatTensor([1, 2]), torch.LongTensor([1, 2]), torch.DoubleTensor([3]).dtype)
print(torch.Tensor([1, 2]).dtype, torch.Tensor(2, 3).shape, torch.IntTensor([4]).dtype)
print((a + b[:1]).dtype, (a * 2.5).dtype, (a / 2).dtype, (a // 2).dtype, (a > 1).dtype)
print(b.to(torch.int64), a.to(dtype=torch.float16).dtype, a.is_floating_point(), b.is_floating_point())
print(torch.is_tensor(a), torch.is_tensor([1]), torch.numel(torch.ones(2, 5)), a.element_size())
print(torch.get_default_dtype())
torch.set_default_dtype(torch.float64)
print(torch.tensor([1.5]).dtype, torch.ones(2).dtype, torch.get_default_dtype())
torch.set_default_dtype(torch.float32)
print(torch.tensor([1.5]).dtype, torch.finfo(torch.float32).eps, torch.iinfo(torch.int8).max)
try:
    torch.tensor([1, 2], requires_grad=True)
except RuntimeError as e:
    print("RuntimeError:", e)
