"""The Quickstart and Build-the-Model tutorials as a learner runs them today: the device line
through torch.accelerator, a Flatten + Sequential network printed and inspected, its logits
turned into a prediction, a short training loop, and the DataParallel wrapper of the Data
Parallelism tutorial (a CPU-only run keeps the module as it is)."""
import minigrad as torch
from minigrad import nn
from minigrad.utils.data import DataLoader, TensorDataset

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() \
    else "cpu"
print(f"Using {device} device")


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(6 * 6, 32),
            nn.ReLU(),
            nn.Linear(32, 32),
            nn.ReLU(),
            nn.Linear(32, 4),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


torch.manual_seed(0)
model = NeuralNetwork().to(device)
print(model)
X = torch.rand(1, 6, 6, device=device)
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(logits.shape, pred_probab.shape, y_pred.shape, y_pred.dtype)
print(f"Model structure: {model.__class__.__name__}")
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | requires_grad: {param.requires_grad}")

# a tiny data set the model can learn: the class is which quarter holds the brightest pixel
images = torch.rand(64, 6, 6, generator=torch.Generator().manual_seed(1))
labels = images.flatten(1).argmax(1) // 9
loader = DataLoader(TensorDataset(images, labels), batch_size=16, shuffle=True,
                    generator=torch.Generator().manual_seed(2))
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-1)
first = None
for epoch in range(30):
    model.train()
    for batch, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        first = loss.item() if first is None else first
print(len(loader), len(loader.dataset), "loss went down:", loss.item() < first)

print("GPUs:", torch.cuda.device_count())
if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model)
wrapped = nn.DataParallel(NeuralNetwork())
print(type(wrapped.module).__name__, wrapped(X).shape)
print(list(wrapped.state_dict())[:2])
