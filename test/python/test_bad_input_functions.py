"""Bad input to torch.* and nn functions raises PyTorch's exception type (one table)."""
import warnings

import pytest
import torch

import lazytensor as lt


def _o(m, *s, dtype=None):
    return m.ones(*s, dtype=getattr(m, dtype) if dtype else None)


BAD = {
    "glu-odd": lambda m: m.nn.functional.glu(_o(m, 3, 3)),
    "glu-scalar": lambda m: m.nn.functional.glu(m.tensor(1.0)),
    "glu-dim": lambda m: m.nn.functional.glu(_o(m, 2, 4), dim=5),
    "prelu-channels": lambda m: m.nn.functional.prelu(_o(m, 2, 3), _o(m, 2)),
    "prelu-weight-2d": lambda m: m.nn.functional.prelu(_o(m, 2, 3), _o(m, 1, 3)),
    "hardswish-int": lambda m: m.nn.functional.hardswish(m.arange(4)),
    "logsigmoid-int": lambda m: m.nn.functional.logsigmoid(m.arange(4)),
    "hardtanh-module": lambda m: m.nn.Hardtanh(1.0, -1.0),
    "cosine_similarity-shapes": lambda m: m.nn.functional.cosine_similarity(_o(m, 2, 3), _o(m, 2, 4)),
    "pairwise-shapes": lambda m: m.nn.functional.pairwise_distance(_o(m, 2, 3), _o(m, 2, 4)),
    "triplet-dims": lambda m: m.nn.functional.triplet_margin_loss(_o(m, 2, 3), _o(m, 3), _o(m, 2, 3)),
    "triplet-reduction": lambda m: m.nn.functional.triplet_margin_loss(_o(m, 2, 3), _o(m, 2, 3), _o(m, 2, 3),
                                                                       reduction="bad"),
    "margin-ranking-dims": lambda m: m.nn.functional.margin_ranking_loss(_o(m, 3), _o(m, 3), _o(m, 2, 3)),
    "cosine-embedding-target": lambda m: m.nn.functional.cosine_embedding_loss(_o(m, 2, 3), _o(m, 2, 3),
                                                                               _o(m, 2, 1)),
    "cosine-embedding-inputs": lambda m: m.nn.functional.cosine_embedding_loss(_o(m, 3), _o(m, 3), _o(m, 2)),
    "huber-reduction": lambda m: m.nn.functional.huber_loss(_o(m, 3), _o(m, 3), reduction="x"),
    "zeropad-1d": lambda m: m.nn.ZeroPad2d(1)(_o(m, 3)),
    "addmm-shapes": lambda m: m.addmm(_o(m, 2, 4), _o(m, 2, 3), _o(m, 4, 4)),
    "addmm-1d": lambda m: m.addmm(_o(m, 2, 4), _o(m, 3), _o(m, 3, 4)),
    "addmm-input": lambda m: m.addmm(_o(m, 3, 4), _o(m, 2, 3), _o(m, 3, 4)),
    "addmm-dtype": lambda m: m.addmm(_o(m, 2, 4, dtype="float64"), _o(m, 2, 3), _o(m, 3, 4)),
    "baddbmm-batches": lambda m: m.baddbmm(_o(m, 2, 2, 4), _o(m, 2, 2, 3), _o(m, 3, 3, 4)),
    "baddbmm-inner": lambda m: m.baddbmm(_o(m, 2, 2, 4), _o(m, 2, 2, 3), _o(m, 2, 4, 4)),
    "addbmm-batches": lambda m: m.addbmm(_o(m, 2, 4), _o(m, 2, 2, 3), _o(m, 3, 3, 4)),
    "addmv-size": lambda m: m.addmv(_o(m, 2), _o(m, 2, 3), _o(m, 4)),
    "addmv-input": lambda m: m.addmv(_o(m, 3), _o(m, 2, 3), _o(m, 3)),
    "mv-size": lambda m: m.mv(_o(m, 2, 3), _o(m, 4)),
    "mv-dims": lambda m: m.mv(_o(m, 2, 3), _o(m, 3, 1)),
    "frac-int": lambda m: m.frac(m.arange(3)),
    "fmod-shapes": lambda m: m.fmod(_o(m, 2), _o(m, 3)),
    "logical_xor-shapes": lambda m: m.logical_xor(_o(m, 2), _o(m, 3)),
    "diff-scalar": lambda m: m.diff(m.tensor(1.0)),
    "diff-prepend-dims": lambda m: m.diff(_o(m, 2, 3), prepend=_o(m, 3)),
    "diff-prepend-shape": lambda m: m.diff(_o(m, 2, 3), dim=0, prepend=_o(m, 1, 4)),
    "diff-dim": lambda m: m.diff(_o(m, 2, 3), dim=2),
    "roll-align": lambda m: m.roll(_o(m, 3), (1, 2), 0),
    "roll-dim": lambda m: m.roll(_o(m, 3), 1, 2),
    "movedim-count": lambda m: m.movedim(_o(m, 2, 3, 4), (0, 1), (1,)),
    "movedim-repeat": lambda m: m.movedim(_o(m, 2, 3, 4), (0, 0), (1, 2)),
    "movedim-range": lambda m: m.movedim(_o(m, 2, 3, 4), 0, 3),
    "meshgrid-2d": lambda m: m.meshgrid(_o(m, 2, 2), _o(m, 3), indexing="ij"),
    "meshgrid-dtype": lambda m: m.meshgrid(_o(m, 2), _o(m, 3, dtype="float64"), indexing="ij"),
    "meshgrid-indexing": lambda m: m.meshgrid(_o(m, 2), _o(m, 3), indexing="foo"),
    "meshgrid-empty": lambda m: m.meshgrid(indexing="ij"),
    "cross-no3": lambda m: m.cross(_o(m, 2, 4), _o(m, 2, 4)),
    "cross-dim-len": lambda m: m.cross(_o(m, 2, 4), _o(m, 2, 4), dim=1),
    "cross-ndim": lambda m: m.cross(_o(m, 3), _o(m, 2, 3)),
    "cross-dtype": lambda m: m.cross(_o(m, 3, dtype="int64"), _o(m, 3)),
    "cdist-1d": lambda m: m.cdist(_o(m, 3), _o(m, 3)),
    "cdist-cols": lambda m: m.cdist(_o(m, 2, 3), _o(m, 4, 4)),
    "cdist-p": lambda m: m.cdist(_o(m, 2, 3), _o(m, 4, 3), p=-1),
    "cdist-int": lambda m: m.cdist(_o(m, 2, 3, dtype="int64"), _o(m, 4, 3, dtype="int64")),
    "cdist-batch": lambda m: m.cdist(_o(m, 2, 2, 3), _o(m, 3, 4, 3)),
    "cumprod-dim": lambda m: m.cumprod(_o(m, 3), 1),
    "cumprod-nodim": lambda m: m.cumprod(_o(m, 3)),
    "dropout-p": lambda m: m.dropout(_o(m, 3), 1.5, True),
    "dropout-int": lambda m: m.dropout(m.arange(3), 0.5, True),
    "dropout-args": lambda m: m.dropout(_o(m, 3), 0.5),
    "finfo-int": lambda m: m.finfo(m.int32),
    "iinfo-float": lambda m: m.iinfo(m.float32),
    "iinfo-bool": lambda m: m.iinfo(m.bool),
    "tile-negative": lambda m: m.tile(_o(m, 2), (-1,)),
}


@pytest.mark.parametrize("key", list(BAD))
def test_bad_input_raises_torch_exception_type(key):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as te:
            BAD[key](torch)
        with pytest.raises(te.type) as le:
            BAD[key](lt)
    assert str(le.value) or te.type is AssertionError
