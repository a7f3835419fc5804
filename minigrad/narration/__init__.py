"""How the teaching tools put an op into words: its source form, its gradient in numbers.

`narration.ops` is the one table that knows each node by its PyTorch name (`MulBackward0`):
how the forward reads as source (`t3 = x * y`), what the gradient sent to each input is in
terms of the incoming one (`grad * y`), and the remarks a teacher would add. `trace.py` uses
it while recording; `explain.py` while writing the narration.
"""
