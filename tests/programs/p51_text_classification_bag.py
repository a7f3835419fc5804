"""The text-classification tutorial's model on a toy corpus: a vocabulary built by hand,
collate_batch making one flat index tensor with offsets, nn.EmbeddingBag (mean) feeding a
Linear, init_weights with uniform_, SGD with StepLR and clip_grad_norm_, train and evaluate
loops; the bag modes and per-sample weights after."""
import minigrad as torch
from minigrad import nn
from minigrad.utils.data import DataLoader

corpus = [(0, "the match ended with a late goal"), (1, "stocks fell as markets closed"),
          (0, "the team won the final match"), (1, "the bank raised interest rates"),
          (0, "a goal in the final minute"), (1, "markets rose on bank news"),
          (0, "fans cheered the winning team"), (1, "interest rates and stocks")]
vocab = {"<unk>": 0}
for _, text in corpus:
    for token in text.split():
        vocab.setdefault(token, len(vocab))


def text_pipeline(text):
    return [vocab.get(token, 0) for token in text.split()]


def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for _label, _text in batch:
        label_list.append(_label)
        processed_text = torch.tensor(text_pipeline(_text), dtype=torch.int64)
        text_list.append(processed_text)
        offsets.append(processed_text.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    text_list = torch.cat(text_list)
    return label_list, text_list, offsets


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)


torch.manual_seed(0)
label, text, offsets = collate_batch(corpus[:3])
print(label, text.shape, offsets)
model = TextClassificationModel(len(vocab), 8, 2)
print(model)
print(model(text, offsets).shape, model.embedding.mode)
loader = DataLoader(corpus, batch_size=4, shuffle=True, collate_fn=collate_batch,
                    generator=torch.Generator().manual_seed(0))
criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=5)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.9)


def evaluate(dataloader):
    model.eval()
    total_acc, total_count = 0, 0
    with torch.no_grad():
        for label, text, offsets in dataloader:
            predicted_label = model(text, offsets)
            total_acc += (predicted_label.argmax(1) == label).sum().item()
            total_count += label.size(0)
    return total_acc / total_count


for epoch in range(1, 21):
    model.train()
    for label, text, offsets in loader:
        optimizer.zero_grad()
        loss = criterion(model(text, offsets), label)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
    scheduler.step()
print("accuracy:", evaluate(loader), "lr:", round(scheduler.get_last_lr()[0], 5))
print(model.embedding.weight.grad.shape, bool(model.embedding.weight.grad[0].abs().sum() == 0))

weights = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
bags = torch.tensor([0, 1, 2, 3, 3]), torch.tensor([0, 2])
for mode in ("sum", "mean", "max"):
    bag = nn.EmbeddingBag.from_pretrained(weights, mode=mode)
    print(mode, bag(*bags))
summed = nn.EmbeddingBag.from_pretrained(weights, mode="sum")
print(summed(bags[0], bags[1], per_sample_weights=torch.tensor([1.0, 0.5, 2.0, 1.0, 0.0])))
print(summed(torch.tensor([[0, 1], [2, 3]])), summed(*bags).grad_fn)
