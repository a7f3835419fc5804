"""Variable-length batches for recurrent networks, as the NLP tutorials and d2l's sentiment
chapter feed them: pad_sequence, pack_padded_sequence (sorted or not), a bidirectional LSTM
and a GRU over the packed batch, pad_packed_sequence back, the last real step of each
sequence, and the gradient reaching only real positions of the embeddings."""
import minigrad as torch
from minigrad import nn
from minigrad.nn.utils.rnn import (
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpad_sequence,
)

sentences = [torch.tensor([4, 2, 7]), torch.tensor([5, 1, 1, 3, 8]), torch.tensor([6])]
lengths = torch.tensor([len(s) for s in sentences])
padded = pad_sequence(sentences, batch_first=True, padding_value=0)
print(padded)
print(pad_sequence(sentences).shape, pad_sequence(sentences, padding_side="left")[:, 2].tolist())

torch.manual_seed(0)
embedding = nn.Embedding(10, 4, padding_idx=0)
embedded = embedding(padded)
packed = pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
print(type(packed).__name__, packed.data.shape, packed.batch_sizes)
print(packed.sorted_indices, packed.unsorted_indices)
lstm = nn.LSTM(4, 3, num_layers=2, bidirectional=True, batch_first=True)
output, (h_n, c_n) = lstm(packed)
print(type(output).__name__, output.data.shape, h_n.shape, c_n.shape)
unpacked, out_lengths = pad_packed_sequence(output, batch_first=True)
print(unpacked.shape, out_lengths, bool((unpacked[2, 1:] == 0).all()))
last_forward = unpacked[torch.arange(3), out_lengths - 1, :3]
print("h_n is the last real step:", torch.allclose(last_forward, h_n[2], atol=1e-6))
print("first backward step too:", torch.allclose(unpacked[:, 0, 3:], h_n[3], atol=1e-6))

gru = nn.GRU(4, 5)
by_length = sorted(sentences, key=len, reverse=True)
seq_packed = pack_sequence([embedding(s) for s in by_length])
gru_out, gru_h = gru(seq_packed)
print(seq_packed.batch_sizes, gru_out.data.shape, gru_h.shape)
print(pad_packed_sequence(gru_out, total_length=6)[0].shape)

score = unpacked.sum() + gru_h.sum()
score.backward()
grad = embedding.weight.grad
print(grad.shape, "padding row untouched:", bool((grad[0] == 0).all()),
      "used rows:", sorted(int(i) for i in (grad.abs().sum(1) > 0).nonzero().flatten()))
pieces = unpad_sequence(padded, lengths, batch_first=True)
print([p.tolist() for p in pieces])
print(packed.to(torch.float64).data.dtype, packed.is_cuda)
