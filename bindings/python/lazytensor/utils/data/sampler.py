"""Samplers (torch.utils.data.sampler): which indices, in which order."""
import numpy as np

from ... import _C
from ..._random import Generator, _numpy_rng


class Sampler:
    """Yields dataset indices (or, for a batch sampler, lists of them)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _check_bool(name, value):
    if not isinstance(value, bool):
        raise TypeError(f"{name} should be a boolean value, but got {name}={value}")


def _check_positive(name, value):
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


class RandomSampler(Sampler):
    """A random permutation of the indices per epoch (or `num_samples` draws with replacement)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        _check_bool("replacement", replacement)
        _check_positive("num_samples", self.num_samples)
        if generator is not None and not isinstance(generator, Generator):
            raise TypeError(f"RandomSampler: expected a torch.Generator as generator, got {type(generator).__name__}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        rng = _numpy_rng(self.generator, self.num_samples)
        if self.replacement:
            # Drawn 32 at a time as torch does, so a huge num_samples never allocates all draws at once.
            left = self.num_samples
            while left > 0:
                k = min(32, left)
                yield from rng.integers(0, n, size=k).tolist()
                left -= k
            return
        for _ in range(self.num_samples // n):
            yield from rng.permutation(n).tolist()
        yield from rng.permutation(n).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _numpy_rng(self.generator, len(self.indices)).permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probabilities proportional to `weights`."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        _check_positive("num_samples", num_samples)
        _check_bool("replacement", replacement)
        w = np.asarray(weights.tolist() if isinstance(weights, _C.Tensor) else weights, dtype=np.float64)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        w = self.weights
        if (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
            raise RuntimeError("WeightedRandomSampler: weights must be finite, non-negative and not all zero")
        if not self.replacement and self.num_samples > np.count_nonzero(w):
            raise RuntimeError("WeightedRandomSampler: cannot draw more samples than there are non-zero weights "
                               f"without replacement ({self.num_samples} > {np.count_nonzero(w)})")
        rng = _numpy_rng(self.generator, self.num_samples)
        yield from rng.choice(len(w), size=self.num_samples, replace=self.replacement, p=w / w.sum()).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of `batch_size` (the last one shorter unless drop_last)."""

    def __init__(self, sampler, batch_size, drop_last):
        _check_positive("batch_size", batch_size)
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
