"""nn.utils.rnn: pad_sequence (PyTorch 1.13). Packed sequences are not supported by lazytensor."""
from collections import namedtuple

from ... import _C
from ..._C import Tensor

__all__ = ["pad_sequence", "PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pack_sequence"]


def pad_sequence(sequences, batch_first=False, padding_value=0.0):
    """Stack variable-length [L_i, *] tensors into [max L, B, *] ([B, max L, *] with batch_first)."""
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("pad_sequence: received an empty list of sequences")
    for i, s in enumerate(sequences):
        if not isinstance(s, Tensor):
            raise TypeError("pad_sequence: expected a sequence of tensors, but element {} is {}".format(
                i, type(s).__name__))
        if s.dim() == 0:
            raise RuntimeError("pad_sequence: sequence {} is a 0-D tensor; each sequence needs a length dim".format(i))
    trailing = tuple(sequences[0].shape[1:])
    for i, s in enumerate(sequences):
        if tuple(s.shape[1:]) != trailing:
            raise RuntimeError("pad_sequence: the trailing dims of every sequence must match: sequence 0 has shape "
                               "{}, sequence {} has shape {}".format(list(sequences[0].shape), i, list(s.shape)))
    max_len = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        extra = max_len - s.shape[0]
        if extra:
            s = _C._pad(s, [0, 0] * len(trailing) + [0, extra], float(padding_value))
        padded.append(s)
    return _C.stack(padded, 0 if batch_first else 1)


def _packed_unsupported(*args, **kwargs):
    raise NotImplementedError("PackedSequence (pack_padded_sequence, pack_sequence, pad_packed_sequence) is not "
                              "supported by lazytensor: pad the batch with nn.utils.rnn.pad_sequence, pass the "
                              "padded tensor to the RNN, and mask the padded steps in the loss instead")


class PackedSequence(namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    def __new__(cls, *args, **kwargs):
        _packed_unsupported()


pack_padded_sequence = _packed_unsupported
pad_packed_sequence = _packed_unsupported
pack_sequence = _packed_unsupported
