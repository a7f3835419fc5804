"""PyTorch's everyday surface around the engine: not the algorithm.

The values the engine and the ops use (`dtypes`, `devices`, `size`, `printing`, `summation`), and
the API built on Tensor and the ops (`tensor_methods`, `tensor_info`, `factories`,
`random_factories`, `legacy_tensors`, `type_info`, `return_types`, `cuda`, `backends`). A learner
reading how backward works can skip this folder; `minigrad/autograd/README.md` says where to start.
"""
