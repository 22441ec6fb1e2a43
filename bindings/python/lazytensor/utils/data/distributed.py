"""torch.utils.data.distributed.DistributedSampler: each rank's share of the dataset's indices.

The shuffled order is torch 1.13's for the same seed and epoch: torch draws
`randperm(n)` from a CPU generator seeded with seed + epoch, which is a
Fisher-Yates shuffle driven by MT19937's 32-bit outputs; NumPy's MT19937 with
legacy seeding is the same engine, so the shuffle is rebuilt here exactly
(lazytensor's own generator is Philox and would give another order).
"""
import math

import numpy as np

from .sampler import Sampler
from ...distributed import distributed_c10d as _dist


def _torch_randperm(n, seed):
    """torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist() of torch 1.13 (CPU)."""
    engine = np.random.MT19937(0)
    engine._legacy_seeding(seed & 0xFFFFFFFF)
    draws = engine.random_raw(max(n - 1, 0)).tolist()
    order = list(range(n))
    for i in range(n - 1):
        z = i + draws[i] % (n - i)
        order[i], order[z] = order[z], order[i]
    return order


class DistributedSampler(Sampler):
    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None:
            if not _dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = _dist.get_world_size()
        if rank is None:
            if not _dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            rank = _dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        indices = _torch_randperm(n, self.seed + self.epoch) if self.shuffle else list(range(n))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[:self.total_size]
        assert len(indices) == self.total_size
        indices = indices[self.rank:self.total_size:self.num_replicas]
        assert len(indices) == self.num_samples
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        self.epoch = epoch
