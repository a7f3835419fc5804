"""In the style of d2l's concise MLP: Flatten, Linear, ReLU, init through net.apply, and a
training loop with cross-entropy (reduction='none' then mean) on synthetic 'images'."""
import minigrad as torch
from minigrad import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Flatten(), nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)
print(net)
print([p.shape for p in net.parameters()])

prototypes = torch.randn(4, 1, 4, 4)
labels = torch.arange(4).repeat(25)
images = prototypes[labels] + 0.1 * torch.randn(100, 1, 4, 4)
loss = nn.CrossEntropyLoss(reduction='none')
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
for epoch in range(30):
    trainer.zero_grad()
    l = loss(net(images), labels)
    l.mean().backward()
    trainer.step()
print(l.shape, l.dtype)
accuracy = (net(images).argmax(dim=1) == labels).float().mean()
print('accuracy above 0.9:', accuracy.item() > 0.9)
