"""In the style of d2l's "GPUs" section on a machine without one: devices, try_gpu, where a
tensor lives, moving a model."""
import minigrad as torch
from minigrad import nn

print(torch.device('cpu'), torch.device('cuda'), torch.device('cuda:1'))
print(torch.cuda.device_count(), torch.cuda.is_available())


def try_gpu(i=0):
    if torch.cuda.device_count() >= i + 1:
        return torch.device(f'cuda:{i}')
    return torch.device('cpu')


def try_all_gpus():
    devices = [torch.device(f'cuda:{i}') for i in range(torch.cuda.device_count())]
    return devices if devices else [torch.device('cpu')]


print(try_gpu(), try_gpu(10), try_all_gpus())
x = torch.tensor([1, 2, 3])
print(x.device)
X = torch.ones(2, 3, device=try_gpu())
print(X)
Y = torch.rand(2, 3, device=try_gpu()).to(X.device)
print((X + Y).device, X.cpu().device, X.to('cpu').device is not None)
net = nn.Sequential(nn.Linear(3, 1))
net = net.to(device=try_gpu())
print(net(X).shape, net[0].weight.data.device)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device, X.to(device, torch.float64).dtype, X.to(torch.int64).dtype)
print(X.to(Y).dtype, X.is_cuda)
try:
    X.cuda()
except AssertionError as e:
    print("AssertionError:", str(e).splitlines()[0])
