"""torch.utils.data for lazytensor: datasets, samplers and a DataLoader.

Same API and semantics as PyTorch 1.13's, with two lazytensor-specific
behaviours (docs/python.md):

- A batch of a TensorDataset (or a Subset or ConcatDataset of one) under the
  default collate function is fetched as one indexed gather per tensor
  instead of one `dataset[i]` per sample and a stack: the batch is a single
  recorded op whose index tensor is data, so every full batch has the same
  trace and each training step is a trace-cache hit.
- Loading always happens in the calling process: `num_workers > 0` is
  accepted and warns once (lazy tensors are not shared across processes).
  Shuffled orders are reproducible under `manual_seed` / `generator=` but
  differ from PyTorch's (a different random generator).
"""
from .dataset import (ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset,  # noqa: F401
                      random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,  # noqa: F401
                      SubsetRandomSampler, WeightedRandomSampler)
from .dataloader import (DataLoader, collate, default_collate, default_collate_fn_map, default_convert,  # noqa: F401
                         get_worker_info)
from .distributed import DistributedSampler  # noqa: F401

