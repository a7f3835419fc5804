"""In the style of d2l's "file I/O": saving and loading a tensor, a list, a dict and a model's
state_dict, then a clone that gives the same outputs."""
import minigrad as torch
from minigrad import nn
from minigrad.nn import functional as F

x = torch.arange(4)
torch.save(x, 'x-file')
x2 = torch.load('x-file')
print(x2)

y = torch.zeros(4)
torch.save([x, y], 'x-files')
x2, y2 = torch.load('x-files')
print(x2, y2)

mydict = {'x': x, 'y': y}
torch.save(mydict, 'mydict')
mydict2 = torch.load('mydict')
print(mydict2)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(20, 256)
        self.output = nn.Linear(256, 10)

    def forward(self, x):
        return self.output(F.relu(self.hidden(x)))


net = MLP()
X = torch.randn(size=(2, 20))
Y = net(X)
torch.save(net.state_dict(), 'mlp.params')
clone = MLP()
print(clone.load_state_dict(torch.load('mlp.params')))
print(clone.eval())
Y_clone = clone(X)
print(Y_clone == Y)
checkpoint = {'epoch': 3, 'model': net.state_dict(), 'note': 'after three epochs'}
torch.save(checkpoint, 'checkpoint.pt')
back = torch.load('checkpoint.pt', weights_only=True)
print(back['epoch'], back['note'], list(back['model'].keys()))
