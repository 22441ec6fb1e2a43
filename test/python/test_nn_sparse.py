"""EmbeddingBag and F.embedding_bag (nn/_functional_sparse.py, nn/modules/sparse.py) vs PyTorch 1.13."""
import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import assert_same, matches, raises_as, rnd

LF, TF = lt.nn.functional, torch.nn.functional


W6 = np.random.RandomState(3).randn(6, 3)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_bag_offsets(mode, padding_idx):
    inp, off = np.array([1, 2, 4, 5, 4, 3, 2, 0]), np.array([0, 2, 2, 5])  # bag 1 is empty
    matches(lambda w, i, o: LF.embedding_bag(i, w, o, mode=mode, padding_idx=padding_idx),
          lambda w, i, o: TF.embedding_bag(i, w, o, mode=mode, padding_idx=padding_idx), [W6, inp, off])
    matches(lambda w, i, o: LF.embedding_bag(i, w, o, mode=mode, include_last_offset=True),
          lambda w, i, o: TF.embedding_bag(i, w, o, mode=mode, include_last_offset=True),
          [W6, inp, np.array([0, 3, 3, 8])])
    matches(lambda w, i: LF.embedding_bag(i, w, mode=mode, padding_idx=padding_idx),
          lambda w, i: TF.embedding_bag(i, w, mode=mode, padding_idx=padding_idx), [W6, inp.reshape(2, 4)])


def test_embedding_bag_per_sample_weights_and_module():
    inp, off, psw = np.array([1, 2, 4, 5, 4, 3]), np.array([0, 4]), rnd(6)
    matches(lambda w, i, o, p: LF.embedding_bag(i, w, o, mode="sum", per_sample_weights=p),
          lambda w, i, o, p: TF.embedding_bag(i, w, o, mode="sum", per_sample_weights=p), [W6, inp, off, psw],
          grad=(0, 3))
    m_lt = lt.nn.EmbeddingBag.from_pretrained(lt.from_numpy(W6.copy()), freeze=False, mode="max")
    m_t = torch.nn.EmbeddingBag.from_pretrained(torch.from_numpy(W6.copy()), freeze=False, mode="max")
    matches(lambda i: m_lt(i), lambda i: m_t(i), [inp.reshape(3, 2)], grad=())
    m_lt(lt.from_numpy(inp.reshape(3, 2))).sum().backward()
    m_t(torch.from_numpy(inp.reshape(3, 2))).sum().backward()
    assert_same(m_lt.weight.grad, m_t.weight.grad)
    assert tuple(lt.nn.EmbeddingBag(10, 4).weight.shape) == (10, 4)


def test_embedding_bag_errors():
    w, wt = lt.from_numpy(W6), torch.from_numpy(W6)
    i2, i2t = lt.zeros(2, 3, dtype=lt.int64), torch.zeros(2, 3, dtype=torch.int64)
    o, ot = lt.zeros(2, dtype=lt.int64), torch.zeros(2, dtype=torch.int64)
    raises_as(lambda: LF.embedding_bag(i2, w, o), lambda: TF.embedding_bag(i2t, wt, ot), "offsets")
    raises_as(lambda: LF.embedding_bag(o, w), lambda: TF.embedding_bag(ot, wt), "offsets")
    raises_as(lambda: LF.embedding_bag(i2, w, mode="mean", per_sample_weights=lt.ones(2, 3)),
                lambda: TF.embedding_bag(i2t, wt, mode="mean", per_sample_weights=torch.ones(2, 3)), "per_sample")
    raises_as(lambda: LF.embedding_bag(i2, w, mode="prod"), lambda: TF.embedding_bag(i2t, wt, mode="prod"))
    raises_as(lambda: LF.embedding_bag(lt.zeros(2, 2, 2, dtype=lt.int64), w),
                lambda: TF.embedding_bag(torch.zeros(2, 2, 2, dtype=torch.int64), wt))
