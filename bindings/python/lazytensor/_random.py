"""Generators: the global Philox stream and independent ones, as in PyTorch.

Every random function draws from a stream (seed, offset): `rand`/`randn`
nodes record the pair and advance the offset by the numbers they use. The
global stream lives in the C++ core (`torch.default_generator`); a
`Generator()` you create has its own pair, and a function given
`generator=g` draws from g's stream and leaves the global one where it was.
The numbers differ from PyTorch's (a different generator), but the
semantics are the same: results are reproducible from the seed, and an
independent generator is independent.

Drawing from g swaps g's state into the core for the duration of the call
(`_rng`); like PyTorch's, the generators are not safe to share between
threads that draw at the same time.
"""
import contextlib
import random as _pyrandom

import numpy as np

from . import _C
from ._device import device

# torch.Generator's seed before any manual_seed (c10::default_rng_seed_val).
_DEFAULT_SEED = 67280421310721


class Generator:
    """An independent random stream: `torch.Generator().manual_seed(0)`."""

    def __init__(self, device="cpu"):
        if str(device) != "cpu":
            raise RuntimeError(f"Generator: lazytensor has only CPU generators, got device {device!r}")
        self._seed, self._offset = _DEFAULT_SEED, 0

    @property
    def device(self):
        return device("cpu")

    def _state(self):
        return self._seed, self._offset

    def _set(self, seed, offset):
        self._seed, self._offset = seed, offset

    def manual_seed(self, seed):
        self._set(_seed_value(seed), 0)
        return self

    def seed(self):
        s = _pyrandom.getrandbits(63)
        self._set(s, 0)
        return s

    def initial_seed(self):
        return self._state()[0]

    def get_state(self):
        return _C.from_numpy(np.array(self._state(), dtype=np.int64))

    def set_state(self, new_state):
        if not isinstance(new_state, _C.Tensor) or tuple(new_state.shape) != (2,) or new_state.dtype != _C.int64:
            raise RuntimeError("Generator.set_state: expected the int64 tensor of 2 elements that get_state returns, got "
                               f"{type(new_state).__name__}")
        self._set(*(int(v) for v in new_state.tolist()))
        return self


class _GlobalGenerator(Generator):
    """`torch.default_generator`: its state is the C++ core's global stream."""

    def __init__(self):
        pass

    def _state(self):
        return _C._generator_state()

    def _set(self, seed, offset):
        _C._set_generator_state(seed, offset)

    def __repr__(self):
        return "<torch.default_generator>"


default_generator = _GlobalGenerator()


def _seed_value(seed):
    if isinstance(seed, bool) or not isinstance(seed, int):
        try:
            seed = int(seed)
        except (TypeError, ValueError):
            raise TypeError(f"manual_seed: expected an int seed, got {type(seed).__name__}") from None
    if not -(1 << 63) <= seed < (1 << 64):
        raise RuntimeError(f"manual_seed: seed must be within [-2**63, 2**64), got {seed}")
    return seed - (1 << 64) if seed >= (1 << 63) else seed


@contextlib.contextmanager
def _rng(generator):
    """Random functions called inside draw from `generator` (None: the global stream)."""
    if generator is None or isinstance(generator, _GlobalGenerator):
        yield
        return
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a torch.Generator as generator, got {type(generator).__name__}")
    saved = _C._generator_state()
    _C._set_generator_state(*generator._state())
    try:
        yield
    finally:
        generator._set(*_C._generator_state())
        _C._set_generator_state(*saved)


def _numpy_rng(generator, count):
    """A numpy generator for `count` draws from `generator`'s stream (None: the global one), which it
    advances: for the random functions computed on the host (randperm, multinomial, samplers)."""
    with _rng(generator):
        seed, _ = _C._generator_state()
        offset = _C._advance_generator(count)
    return np.random.default_rng([seed & 0xFFFFFFFF, offset])


def manual_seed(seed):
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)
