"""DataLoader and the default collate functions (torch.utils.data.dataloader)."""
import collections.abc
import re
import warnings

import numpy as np

from ... import _C
from ..._creation import as_tensor, tensor
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, Sampler

_np_str_obj = re.compile(r"[SaUO]")
_collate_err = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _as_tensor(x):
    return as_tensor(x)


def default_convert(data):
    """Turns numpy arrays (also inside dicts, tuples and lists) into tensors; the rest is left as is."""
    elem_type = type(data)
    if isinstance(data, _C.Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and _np_str_obj.search(data.dtype.str) is not None:
            return data
        return _as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            return elem_type({k: default_convert(v) for k, v in data.items()})
        except TypeError:
            return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map=None):
    """Collates a list of samples: by `collate_fn_map` (element type -> function, exact type first, then
    the first key it is an instance of), else field by field for dicts, namedtuples and sequences."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        try:
            return elem_type({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem})
        except TypeError:
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(_collate_err.format(elem_type))


def _collate_tensor(batch, *, collate_fn_map=None):
    return _C.stack(list(batch), 0)


def _collate_numpy_array(batch, *, collate_fn_map=None):
    if _np_str_obj.search(batch[0].dtype.str) is not None:
        raise TypeError(_collate_err.format(batch[0].dtype))
    return collate([_as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def _collate_numpy_scalar(batch, *, collate_fn_map=None):
    return _as_tensor(np.array(batch))


def _collate_float(batch, *, collate_fn_map=None):
    return tensor(batch, dtype=_C.float64)


def _collate_int(batch, *, collate_fn_map=None):
    return tensor(batch)


def _collate_str(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {_C.Tensor: _collate_tensor, np.ndarray: _collate_numpy_array,
                          (np.bool_, np.number, np.object_): _collate_numpy_scalar, float: _collate_float,
                          int: _collate_int, (str, bytes): _collate_str}


def default_collate(batch):
    """Stacks a list of samples into a batch: tensors and arrays are stacked, numbers become tensors,
    strings stay lists, and dicts, namedtuples and sequences are collated field by field."""
    return collate(batch, collate_fn_map=default_collate_fn_map)


def get_worker_info():
    """None: lazytensor always loads in the calling process."""
    return None


class _InfiniteConstantSampler(Sampler):
    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Iterates over a dataset in batches (PyTorch 1.13's arguments and checks; loading in this process)."""

    _warned_workers = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=2, persistent_workers=False,
                 pin_memory_device=""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor != 2:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if isinstance(dataset, IterableDataset):
            if isinstance(shuffle, bool) and shuffle:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle option, "
                                 f"but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option, "
                                 f"but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                                 f"but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            if isinstance(dataset, IterableDataset):
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        if num_workers > 0 and not DataLoader._warned_workers:
            DataLoader._warned_workers = True
            warnings.warn(f"lazytensor's DataLoader loads in the calling process: num_workers={num_workers} "
                          "gives the same batches without worker processes")
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_sampler is not None else default_convert)
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    def __iter__(self):
        return _LoaderIter(self)

    def __len__(self):
        if isinstance(self.dataset, IterableDataset):
            length = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else -(-length // self.batch_size)
            return length
        return len(self.batch_sampler if self._auto_collation else self.sampler)


class _LoaderIter:
    def __init__(self, loader):
        self._loader = loader
        self._it = self._batches(loader)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)

    def __len__(self):
        return len(self._loader)

    @staticmethod
    def _batches(loader):
        ds, collate = loader.dataset, loader.collate_fn
        if isinstance(ds, IterableDataset):
            it = iter(ds)
            if not loader._auto_collation:
                for sample in it:
                    yield collate(sample)
                return
            while True:
                batch = [s for _, s in zip(range(loader.batch_size), it)]
                if not batch or (loader.drop_last and len(batch) < loader.batch_size):
                    return
                yield collate(batch)
        if not loader._auto_collation:
            for i in loader.sampler:
                yield collate(ds[i])
            return
        fast = getattr(ds, "_lt_batch", None) if collate is default_collate else None
        for indices in loader.batch_sampler:
            batch = fast(indices) if fast is not None and len(indices) > 0 else None
            yield batch if batch is not None else collate([ds[i] for i in indices])
