"""`minigrad.nn.utils`, as `torch.nn.utils`: gradient clipping (clip_grad), parameters as one
vector and back (convert_parameters), sequences of several lengths (rnn), parametrizations
(parametrize, parametrizations; and the older weight_norm and spectral_norm), and minigrad's
`grad_report` (every parameter's gradient at a glance, with warnings) and `GradFlow` (the
gradient flow over training steps, as a picture)."""

from minigrad.nn.grad_report import GradFlow, GradRow, grad_report
from minigrad.nn.utils import (
    clip_grad,
    convert_parameters,
    parametrizations,
    parametrize,
    rnn,
)
from minigrad.nn.utils.clip_grad import clip_grad_norm_, clip_grad_value_
from minigrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from minigrad.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm
from minigrad.nn.utils.weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector",
           "vector_to_parameters", "grad_report", "GradRow", "GradFlow", "clip_grad",
           "convert_parameters", "rnn", "parametrize", "parametrizations", "weight_norm",
           "remove_weight_norm", "spectral_norm", "remove_spectral_norm"]
