"""Autograd, nn and optim against PyTorch (same initial weights, same data)."""
import copy

import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import assert_same, pair

rng = np.random.default_rng(1)


def _grad_case(fn_lt, fn_torch, *arrays, rtol=1e-4, atol=1e-5):
    xs = [pair(a, requires_grad=True) for a in arrays]
    out_l = fn_lt(*[x[0] for x in xs])
    out_t = fn_torch(*[x[1] for x in xs])
    assert_same(out_l, out_t, rtol=rtol, atol=atol)
    out_l.backward()
    out_t.backward()
    for (a, b) in xs:
        assert_same(a.grad, b.grad, rtol=rtol, atol=atol)


A = rng.standard_normal((4, 5)).astype(np.float32)
W = rng.standard_normal((3, 5)).astype(np.float32)

GRAD_CASES = {
    "sum_mul": lambda m: (lambda a: (a * a).sum()),
    "mean_exp": lambda m: (lambda a: a.exp().mean()),
    "tanh_sig": lambda m: (lambda a: (a.tanh() * a.sigmoid()).sum()),
    "softmax": lambda m: (lambda a: (a.softmax(1) * m.arange(5.0)).sum()),
    "log_softmax": lambda m: (lambda a: a.log_softmax(-1)[:, 2].sum()),
    "relu_pow": lambda m: (lambda a: (a.relu() ** 2).sum()),
    "max_reduce": lambda m: (lambda a: a.amax(1).sum()),
    "slice_view": lambda m: (lambda a: a[1:3, ::2].sum() + a.T[0].sum()),
    "reshape_perm": lambda m: (lambda a: a.reshape(2, 10).permute(1, 0)[3].sum()),
    "where": lambda m: (lambda a: m.where(a > 0, a, a * 0.1).sum()),
    "gelu": lambda m: (lambda a: m.nn.functional.gelu(a).sum()),
    "layer_norm": lambda m: (lambda a: (m.nn.functional.layer_norm(a, (5,)) * m.arange(5.0)).sum()),
    "std": lambda m: (lambda a: a.std(1).sum()),
    "cat_stack": lambda m: (lambda a: (m.cat([a, a * 2], 0).sum(0) * m.stack([a[0], a[1]]).sum(0)).sum()),
}


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_gradients_match_torch(name):
    _grad_case(GRAD_CASES[name](lt), GRAD_CASES[name](torch), A)


def test_matmul_linear_gradients():
    _grad_case(lambda a, w: lt.nn.functional.linear(a, w).tanh().sum(),
               lambda a, w: torch.nn.functional.linear(a, w).tanh().sum(), A, W)


def test_grad_accumulates_and_zero_grad():
    a, b = pair(A, requires_grad=True)
    for _ in range(2):
        (a * 3).sum().backward()
        (b * 3).sum().backward()
    assert_same(a.grad, b.grad)
    a.grad.zero_()
    assert a.grad.abs().sum().item() == 0


def test_autograd_grad_function():
    a, b = pair(A, requires_grad=True)
    (ga,) = lt.autograd.grad((a ** 3).sum(), a)
    (gb,) = torch.autograd.grad((b ** 3).sum(), b)
    assert_same(ga, gb, rtol=1e-4)
    assert a.grad is None


def test_backward_non_scalar_needs_gradient():
    a = lt.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        (a * 2).backward()
    (a * 2).backward(lt.tensor([1.0, 0.5]))
    assert a.grad.tolist() == [2.0, 1.0]


def test_no_grad_and_friends():
    a = lt.tensor([1.0], requires_grad=True)
    with lt.no_grad():
        assert not (a * 2).requires_grad
        with lt.enable_grad():
            assert (a * 2).requires_grad
    assert (a * 2).requires_grad
    with lt.set_grad_enabled(False):
        assert not lt.is_grad_enabled()
    assert lt.is_grad_enabled()

    @lt.no_grad()
    def f(x):
        return x * 2
    assert not f(a).requires_grad
    assert (a * 2).grad_fn is not None and a.grad_fn is None and a.is_leaf and not (a * 2).is_leaf
    assert not a.detach().requires_grad


# ---- nn ----
def _copy_params(m_lt, m_t):
    """Give both models the torch model's initial weights."""
    sd = {k: lt.from_numpy(v.detach().numpy().copy()) for k, v in m_t.state_dict().items()}
    m_lt.load_state_dict(sd)


def _mlp(mod):
    return mod.nn.Sequential(mod.nn.Linear(5, 8), mod.nn.ReLU(), mod.nn.Linear(8, 8), mod.nn.GELU(),
                             mod.nn.LayerNorm(8), mod.nn.Linear(8, 3))


def test_module_structure_matches_torch():
    m_l, m_t = _mlp(lt), _mlp(torch)
    assert list(m_l.state_dict().keys()) == list(m_t.state_dict().keys())
    assert [n for n, _ in m_l.named_parameters()] == [n for n, _ in m_t.named_parameters()]
    assert [tuple(p.shape) for p in m_l.parameters()] == [tuple(p.shape) for p in m_t.parameters()]
    assert len(list(m_l.modules())) == len(list(m_t.modules()))
    assert len(list(m_l.children())) == len(list(m_t.children()))
    assert repr(m_l) == repr(m_t)
    assert all(isinstance(p, lt.nn.Parameter) and p.requires_grad and p.is_leaf for p in m_l.parameters())
    assert isinstance(m_l[0].weight, lt.Tensor)


def test_module_forward_and_backward_match():
    m_l, m_t = _mlp(lt), _mlp(torch)
    _copy_params(m_l, m_t)
    x_l, x_t = pair(A)
    assert_same(m_l(x_l), m_t(x_t), rtol=1e-4, atol=1e-5)
    m_l(x_l).pow(2).sum().backward()
    m_t(x_t).pow(2).sum().backward()
    for (n, p), (_, q) in zip(m_l.named_parameters(), m_t.named_parameters()):
        assert_same(p.grad, q.grad, rtol=1e-3, atol=1e-4)


def test_default_linear_init_bounds():
    lin = lt.nn.Linear(100, 50)
    w = lin.weight.detach().numpy()
    bound = 1 / np.sqrt(100)
    assert np.abs(w).max() <= bound + 1e-6 and np.abs(w).max() > 0.8 * bound
    assert np.abs(lin.bias.detach().numpy()).max() <= bound


def test_train_eval_dropout():
    m = lt.nn.Sequential(lt.nn.Dropout(0.5))
    x = lt.ones(1000)
    y = m(x)
    frac = (y == 0).float().mean().item()
    assert 0.4 < frac < 0.6 and abs(y.sum().item() / 1000 - 1.0) < 0.15
    m.eval()
    assert not m.training and not m[0].training
    assert m(x) is x


def test_register_buffer_and_state_dict_roundtrip():
    class M(lt.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lt.nn.Linear(2, 2)
            self.register_buffer("running", lt.zeros(2))
            self.register_buffer("tmp", lt.ones(1), persistent=False)
            self.scale = lt.nn.Parameter(lt.tensor(2.0))

        def forward(self, x):
            return self.lin(x) * self.scale + self.running

    m = M()
    assert set(m.state_dict()) == {"lin.weight", "lin.bias", "running", "scale"}
    assert len(list(m.buffers())) == 2
    m2 = M()
    m2.load_state_dict(m.state_dict())
    assert_same(m2.lin.weight, torch.from_numpy(m.lin.weight.detach().numpy()))
    with pytest.raises(RuntimeError):
        m2.load_state_dict({"lin.weight": lt.zeros(2, 2)})
    r = m2.load_state_dict({"lin.weight": lt.zeros(2, 2)}, strict=False)
    assert "running" in r.missing_keys
    m3 = copy.deepcopy(m)
    assert m3.lin.weight is not m.lin.weight and m3.lin.weight.tolist() == m.lin.weight.tolist()
    m.zero_grad()
    m.apply(lambda mod: None)
    assert m.to(lt.float64).lin.weight.dtype == lt.float64


def test_module_list_and_embedding():
    ml = lt.nn.ModuleList([lt.nn.Linear(2, 2) for _ in range(3)])
    assert len(ml) == 3 and len(list(ml.parameters())) == 6
    ml.append(lt.nn.Tanh())
    assert isinstance(ml[-1], lt.nn.Tanh)
    emb_l, emb_t = lt.nn.Embedding(10, 4, padding_idx=0), torch.nn.Embedding(10, 4, padding_idx=0)
    assert emb_l.weight[0].abs().sum().item() == 0
    _copy_params(emb_l, emb_t)
    i_l, i_t = pair(np.array([[1, 0, 9]], dtype=np.int64))
    assert_same(emb_l(i_l), emb_t(i_t))


LOSSES = [
    ("CrossEntropyLoss", {}, "class"), ("CrossEntropyLoss", {"reduction": "sum"}, "class"),
    ("CrossEntropyLoss", {"label_smoothing": 0.1}, "class"), ("CrossEntropyLoss", {"ignore_index": 1}, "class"),
    ("NLLLoss", {}, "logp"), ("MSELoss", {}, "same"), ("MSELoss", {"reduction": "none"}, "same"),
    ("L1Loss", {}, "same"), ("BCEWithLogitsLoss", {}, "prob"), ("SmoothL1Loss", {}, "same"),
    ("CrossEntropyLoss", {"weight": "w"}, "class"),
]


@pytest.mark.parametrize("name,kw,kind", LOSSES)
def test_losses(name, kw, kind):
    x = rng.standard_normal((6, 4)).astype(np.float32)
    if kind == "class":
        y = rng.integers(0, 4, 6).astype(np.int64)
    elif kind == "logp":
        x = x - np.log(np.exp(x).sum(1, keepdims=True))
        y = rng.integers(0, 4, 6).astype(np.int64)
    elif kind == "prob":
        y = rng.random((6, 4)).astype(np.float32)
    else:
        y = rng.standard_normal((6, 4)).astype(np.float32)
    kl, kt = dict(kw), dict(kw)
    if kw.get("weight") == "w":
        wv = np.array([1.0, 2.0, 0.5, 1.5], dtype=np.float32)
        kl["weight"], kt["weight"] = lt.from_numpy(wv), torch.from_numpy(wv)
    (xl, xt), (yl, yt) = pair(x, requires_grad=True), pair(y)
    ll, lt_ = getattr(lt.nn, name)(**kl)(xl, yl), getattr(torch.nn, name)(**kt)(xt, yt)
    assert_same(ll, lt_, rtol=1e-4, atol=1e-5)
    ll.sum().backward()
    lt_.sum().backward()
    assert_same(xl.grad, xt.grad, rtol=1e-4, atol=1e-5)


FUNCTIONAL = [
    ("relu", ()), ("gelu", ()), ("silu", ()), ("sigmoid", ()), ("tanh", ()), ("softplus", ()),
    ("leaky_relu", (0.2,)), ("elu", ()), ("softmax", (1,)), ("log_softmax", (0,)), ("normalize", ()),
    ("dropout", (0.0,)), ("pad", ((1, 2),)), ("pad", ((1, 1, 0, 2), "constant", 3.0)),
]


@pytest.mark.parametrize("name,args", FUNCTIONAL)
def test_functional(name, args):
    a, b = pair(A)
    assert_same(getattr(lt.nn.functional, name)(a, *args), getattr(torch.nn.functional, name)(b, *args),
                rtol=1e-5, atol=1e-6)


def test_one_hot_and_embedding_functional():
    i_l, i_t = pair(np.array([0, 3, 1], dtype=np.int64))
    assert_same(lt.nn.functional.one_hot(i_l, 4), torch.nn.functional.one_hot(i_t, 4))
    assert_same(lt.nn.functional.one_hot(i_l), torch.nn.functional.one_hot(i_t))
    w_l, w_t = pair(W)
    j_l, j_t = pair(np.array([[2, 0], [1, 1]], dtype=np.int64))
    assert_same(lt.nn.functional.embedding(j_l, w_l), torch.nn.functional.embedding(j_t, w_t))


@pytest.mark.parametrize("init", ["uniform_", "normal_", "zeros_", "ones_", "xavier_uniform_", "xavier_normal_",
                                  "kaiming_uniform_", "kaiming_normal_", "eye_"])
def test_init_functions(init):
    w = lt.nn.Parameter(lt.empty(64, 32))
    r = getattr(lt.nn.init, init)(w)
    assert r is w and w.requires_grad and w.is_leaf
    v = w.detach().numpy()
    if init == "zeros_":
        assert (v == 0).all()
    elif init == "ones_":
        assert (v == 1).all()
    elif init == "xavier_uniform_":
        assert np.abs(v).max() <= np.sqrt(6 / 96) + 1e-6
    elif init == "kaiming_uniform_":
        assert np.abs(v).max() <= np.sqrt(6 / 32) + 1e-6
    elif init == "normal_":
        assert abs(v.std() - 1) < 0.05


# ---- optim ----
OPTIMS = [
    ("SGD", {"lr": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "dampening": 0.3}),
    ("Adam", {"lr": 0.01}), ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("AdamW", {"lr": 0.01}), ("AdamW", {"lr": 0.01, "betas": (0.8, 0.99), "weight_decay": 0.05}),
]


@pytest.mark.parametrize("name,kw", OPTIMS)
def test_optimizers_match_torch(name, kw):
    m_l, m_t = _mlp(lt), _mlp(torch)
    _copy_params(m_l, m_t)
    o_l, o_t = getattr(lt.optim, name)(m_l.parameters(), **kw), getattr(torch.optim, name)(m_t.parameters(), **kw)
    x_l, x_t = pair(A)
    y = rng.integers(0, 3, 4).astype(np.int64)
    y_l, y_t = pair(y)
    for _ in range(4):
        o_l.zero_grad()
        o_t.zero_grad()
        loss_l = lt.nn.functional.cross_entropy(m_l(x_l), y_l)
        loss_t = torch.nn.functional.cross_entropy(m_t(x_t), y_t)
        loss_l.backward()
        loss_t.backward()
        o_l.step()
        o_t.step()
        assert loss_l.item() == pytest.approx(loss_t.item(), rel=1e-4)
    for p, q in zip(m_l.parameters(), m_t.parameters()):
        assert_same(p, q.detach(), rtol=1e-3, atol=1e-5)


def test_zero_grad_default_matches_torch_1_13():
    import inspect
    assert inspect.signature(lt.optim.SGD.zero_grad).parameters["set_to_none"].default == \
        inspect.signature(torch.optim.SGD.zero_grad).parameters["set_to_none"].default


@pytest.mark.parametrize("sched,kw", [("StepLR", {"step_size": 2, "gamma": 0.5}),
                                      ("ExponentialLR", {"gamma": 0.9}),
                                      ("MultiStepLR", {"milestones": [1, 3], "gamma": 0.1}),
                                      ("CosineAnnealingLR", {"T_max": 5})])
def test_lr_schedulers(sched, kw):
    p_l, p_t = lt.nn.Parameter(lt.zeros(1)), torch.nn.Parameter(torch.zeros(1))
    o_l, o_t = lt.optim.SGD([p_l], lr=1.0), torch.optim.SGD([p_t], lr=1.0)
    s_l, s_t = getattr(lt.optim.lr_scheduler, sched)(o_l, **kw), getattr(torch.optim.lr_scheduler, sched)(o_t, **kw)
    for _ in range(6):
        o_l.step()
        o_t.step()
        s_l.step()
        s_t.step()
        assert s_l.get_last_lr() == pytest.approx(s_t.get_last_lr())


def test_clip_grad_norm():
    (a, b) = pair(A, requires_grad=True)
    (a * 10).sum().backward()
    (b * 10).sum().backward()
    n_l = lt.nn.utils.clip_grad_norm_([a], 1.0)
    n_t = torch.nn.utils.clip_grad_norm_([b], 1.0)
    assert n_l.item() == pytest.approx(n_t.item(), rel=1e-5)
    assert_same(a.grad, b.grad, rtol=1e-5)
