"""lazytensor.save/load in torch's zip checkpoint format, checked against real torch 1.13; and DLPack."""
import collections
import io
import pickle

import numpy as np
import pytest

import lazytensor as L

T = pytest.importorskip("torch")


def _roundtrip_to_torch(obj):
    buf = io.BytesIO()
    L.save(obj, buf)
    buf.seek(0)
    return T.load(buf)


def _roundtrip_from_torch(obj, **kw):
    buf = io.BytesIO()
    T.save(obj, buf)
    buf.seek(0)
    return L.load(buf, **kw)


def _mlp(nn):
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


def _np(t):
    return t.detach().numpy()


def _step(mod, nnmod, opt):
    x = mod.ones(5, 4)
    loss = nnmod(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()


def test_archive_layout():
    buf = io.BytesIO()
    L.save({"w": L.ones(2)}, buf)
    import zipfile
    names = zipfile.ZipFile(io.BytesIO(buf.getvalue())).namelist()
    assert "archive/data.pkl" in names and "archive/version" in names and "archive/data/0" in names
    assert zipfile.ZipFile(io.BytesIO(buf.getvalue())).read("archive/version").strip() == b"3"


def test_lazytensor_model_and_adam_to_torch(tmp_path):
    L.manual_seed(0)
    lm = _mlp(L.nn)
    lopt = L.optim.Adam(lm.parameters(), lr=0.01)
    _step(L, lm, lopt)
    path = str(tmp_path / "ckpt.pt")
    L.save({"model": lm.state_dict(), "optim": lopt.state_dict(), "epoch": 3}, path)
    ck = T.load(path)
    assert ck["epoch"] == 3
    lsd = lm.state_dict()
    for k, v in ck["model"].items():
        assert isinstance(v, T.Tensor) and v.dtype == T.float32
        assert tuple(v.shape) == tuple(lsd[k].shape)
        np.testing.assert_array_equal(v.numpy(), _np(lsd[k]))
    tm = _mlp(T.nn)
    tm.load_state_dict(ck["model"])
    topt = T.optim.Adam(tm.parameters(), lr=0.01)
    topt.load_state_dict(ck["optim"])
    lst = lopt.state_dict()
    assert ck["optim"]["param_groups"][0]["lr"] == 0.01
    assert set(ck["optim"]["state"]) == set(lst["state"])
    for pid, st in ck["optim"]["state"].items():
        for name in ("exp_avg", "exp_avg_sq"):
            np.testing.assert_array_equal(st[name].numpy(), _np(lst["state"][pid][name]))
    # torch steps on from the loaded state without complaint
    _step(T, tm, topt)


def test_torch_model_and_adam_to_lazytensor(tmp_path):
    T.manual_seed(0)
    tm = _mlp(T.nn)
    topt = T.optim.Adam(tm.parameters(), lr=0.02)
    _step(T, tm, topt)
    path = tmp_path / "torch.pt"
    T.save({"model": tm.state_dict(), "optim": topt.state_dict()}, path)
    ck = L.load(str(path))
    lm = _mlp(L.nn)
    lm.load_state_dict(ck["model"])
    for k, v in tm.state_dict().items():
        np.testing.assert_array_equal(_np(lm.state_dict()[k]), v.numpy())
        assert ck["model"][k].dtype == L.float32
    lopt = L.optim.Adam(lm.parameters(), lr=0.5)
    lopt.load_state_dict(ck["optim"])
    assert lopt.param_groups[0]["lr"] == 0.02
    for pid, st in topt.state_dict()["state"].items():
        np.testing.assert_array_equal(_np(lopt.state_dict()["state"][pid]["exp_avg"]), st["exp_avg"].numpy())
    _step(L, lm, lopt)


def test_dtypes_both_ways():
    vals = {"f32": T.tensor([1.5, -2.0]), "f64": T.tensor([1.25], dtype=T.float64),
            "i32": T.tensor([1, -7], dtype=T.int32), "i64": T.tensor([2 ** 40]), "b": T.tensor([True, False]),
            "scalar": T.tensor(3.0), "empty": T.zeros(0, 3)}
    got = _roundtrip_from_torch(vals)
    for k, v in vals.items():
        assert str(got[k].dtype).split(".")[-1] == str(v.dtype).split(".")[-1], k
        assert tuple(got[k].shape) == tuple(v.shape)
        np.testing.assert_array_equal(_np(got[k]), v.numpy())
    back = _roundtrip_to_torch(got)
    for k, v in vals.items():
        assert back[k].dtype == v.dtype and back[k].shape == v.shape
        assert T.equal(back[k], v), k


def test_unsupported_dtype_names_it():
    with pytest.raises(TypeError, match="complex64"):
        _roundtrip_from_torch({"h": T.ones(2, dtype=T.complex64)})


def test_torch_views_and_noncontiguous():
    base = T.arange(12.0).reshape(3, 4)
    got = _roundtrip_from_torch({"a": base, "b": base[1:], "t": base.t(), "col": base[:, 2], "again": base})
    np.testing.assert_array_equal(_np(got["b"]), base[1:].numpy())
    np.testing.assert_array_equal(_np(got["t"]), base.t().numpy())
    np.testing.assert_array_equal(_np(got["col"]), base[:, 2].numpy())
    assert got["again"] is got["a"]  # same storage, offset, size and stride: one tensor


def test_tied_weights_share_one_storage_in_torch():
    w = L.randn(3, 3)
    back = _roundtrip_to_torch({"enc": w, "dec": w, "other": w.clone()})
    assert back["enc"].data_ptr() == back["dec"].data_ptr()
    assert back["enc"].data_ptr() != back["other"].data_ptr()
    back["enc"][0, 0] = 42.0
    assert back["dec"][0, 0].item() == 42.0


def test_tied_module_roundtrip_lazytensor():
    lin = L.nn.Linear(3, 3)
    m = L.nn.ModuleDict({"a": lin, "b": lin})
    for keep_vars in (True, False):  # state_dict() detaches each entry: still one storage
        got = _roundtrip_to_torch(m.state_dict(keep_vars=keep_vars))
        assert got["a.weight"].data_ptr() == got["b.weight"].data_ptr()
        assert isinstance(got["a.weight"], T.nn.Parameter) == keep_vars


def _views(mod, base):
    return {"base": base, "rows": base[1:], "t": base.t(), "col": base[:, 2], "inner": base[1:, 1:3],
            "flat": base.view(-1), "step": base[:, ::2], "elem": base[2, 3]}


def test_lazytensor_views_are_one_storage_in_torch():
    ours = _views(L, L.arange(12.0).reshape(3, 4))
    back = _roundtrip_to_torch(ours)
    ref = _views(T, T.arange(12.0).reshape(3, 4))
    for k, v in back.items():
        np.testing.assert_array_equal(v.numpy(), ref[k].numpy())
        assert v.storage().data_ptr() == back["base"].storage().data_ptr(), k
        assert v.storage_offset() == ref[k].storage_offset() and v.stride() == ref[k].stride(), k
    back["base"][2, 2] = -1.0  # torch aliases what lazytensor wrote as views
    assert back["inner"][1, 1].item() == -1.0 and back["t"][2, 2].item() == -1.0


def test_torch_views_load_as_aliases():
    ours = _roundtrip_from_torch(_views(T, T.arange(12.0).reshape(3, 4)))
    ref = _views(T, T.arange(12.0).reshape(3, 4))
    for k, v in ours.items():
        np.testing.assert_array_equal(_np(v), ref[k].numpy())
    ours["base"][2, 2] = -1.0
    ref["base"][2, 2] = -1.0
    ours["rows"][0, 0] = 7.0  # a write through a view shows in the base and the other views
    ref["rows"][0, 0] = 7.0
    for k, v in ours.items():
        np.testing.assert_array_equal(_np(v), ref[k].numpy(), err_msg=k)


def test_torch_view_saved_before_its_base_still_aliases():
    base = T.arange(6.0).reshape(2, 3)
    ours = _roundtrip_from_torch([base[:, 1], base])
    ours[1][0, 1] = 9.0
    assert ours[0].tolist() == [9.0, 4.0]


def test_torch_tied_weights_load_as_one_tensor():
    lin = T.nn.Linear(3, 3)
    m = T.nn.ModuleDict({"a": lin, "b": lin})
    got = _roundtrip_from_torch(m.state_dict())
    assert got["a.weight"] is got["b.weight"]


def test_lazytensor_views_roundtrip_lazytensor():
    buf = io.BytesIO()
    L.save(_views(L, L.arange(12.0).reshape(3, 4)), buf)
    buf.seek(0)
    got = L.load(buf)
    got["base"][1, 1] = 5.0
    assert got["rows"][0, 1].item() == 5.0 and got["flat"][5].item() == 5.0


def test_parameter_roundtrip():
    p = L.nn.Parameter(L.ones(2, 2))
    back = _roundtrip_to_torch({"p": p})
    assert isinstance(back["p"], T.nn.Parameter) and back["p"].requires_grad
    got = _roundtrip_from_torch({"p": T.nn.Parameter(T.ones(3))})
    assert isinstance(got["p"], L.nn.Parameter) and got["p"].requires_grad


class _Evil:
    def __reduce__(self):
        return (print, ("should not run",))


def test_weights_only_rejects_arbitrary_class():
    buf = io.BytesIO()
    T.save({"w": T.ones(2), "x": _Evil()}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError):
        L.load(buf, weights_only=True)
    buf.seek(0)
    T.save(collections.OrderedDict(w=T.ones(2), meta=[1, 2.0, "s", (None, True)]), buf)
    buf.seek(0)
    sd = L.load(buf, weights_only=True)
    assert isinstance(sd, collections.OrderedDict) and sd["meta"] == [1, 2.0, "s", (None, True)]


@pytest.mark.parametrize("loc", ["cpu", L.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage])
def test_map_location(loc):
    got = _roundtrip_from_torch({"w": T.arange(3.0)}, map_location=loc)
    np.testing.assert_array_equal(_np(got["w"]), [0.0, 1.0, 2.0])


def test_torch_map_location_on_lazytensor_file():
    back = _roundtrip_to_torch({"w": L.ones(2)})
    assert back["w"].device.type == "cpu"


def test_old_plain_pickle_still_loads(tmp_path):
    path = tmp_path / "old.pkl"
    with open(path, "wb") as fh:
        pickle.dump({"w": L.arange(4.0), "n": 1}, fh)
    got = L.load(str(path))
    assert got["n"] == 1
    np.testing.assert_array_equal(_np(got["w"]), [0, 1, 2, 3])


def test_lazytensor_roundtrip_file_object():
    buf = io.BytesIO()
    obj = {"x": L.arange(6).reshape(2, 3), "nested": [L.ones(1), (L.zeros(2, dtype=L.float64),)]}
    L.save(obj, buf)
    buf.seek(0)
    got = L.load(buf)
    np.testing.assert_array_equal(_np(got["x"]), _np(obj["x"]))
    assert got["nested"][1][0].dtype == L.float64


# ---------------------------------------------------------------- DLPack

def test_dlpack_to_torch():
    a = L.arange(6.0).reshape(2, 3)
    assert a.__dlpack_device__() == (1, 0)
    t = T.from_dlpack(a)
    np.testing.assert_array_equal(t.numpy(), _np(a))
    t2 = T.utils.dlpack.from_dlpack(L.utils.dlpack.to_dlpack(a * 2))
    np.testing.assert_array_equal(t2.numpy(), _np(a) * 2)


def test_dlpack_from_torch():
    t = T.arange(5, dtype=T.int32)
    a = L.from_dlpack(t)
    assert a.dtype == L.int32
    np.testing.assert_array_equal(_np(a), t.numpy())
    b = L.utils.dlpack.from_dlpack(T.utils.dlpack.to_dlpack(T.ones(2, 2, dtype=T.float64)))
    assert b.dtype == L.float64 and _np(b).tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_dlpack_copies_not_shares():
    t = T.zeros(3)
    a = L.from_dlpack(t)
    t[0] = 9.0
    assert _np(a)[0] == 0.0
    a2 = L.zeros(3)
    t2 = T.from_dlpack(a2)
    t2[0] = 9.0
    assert _np(a2)[0] == 0.0
