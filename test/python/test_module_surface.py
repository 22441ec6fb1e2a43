"""The modules and members PyTorch programs import at the top, against torch 1.13's behaviour."""
import math
import time
import warnings

import numpy as np
import pytest
import torch as ref

import lazytensor as torch


def test_nn_parallel_data_parallel_calls_module():
    lin = torch.nn.Linear(3, 2)
    dp = torch.nn.parallel.DataParallel(lin)
    assert dp.module is lin
    assert torch.nn.DataParallel is torch.nn.parallel.DataParallel
    x = torch.randn(4, 3)
    np.testing.assert_allclose(dp(x).detach().numpy(), lin(x).detach().numpy())
    assert len(list(dp.parameters())) == 2
    rlin = ref.nn.Linear(3, 2)
    assert ref.nn.parallel.DataParallel(rlin).module is rlin


def test_ddp_without_process_group_raises():
    with pytest.raises(RuntimeError, match="Default process group has not been initialized"):
        torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="Default process group has not been initialized"):
        ref.nn.parallel.DistributedDataParallel(ref.nn.Linear(2, 2))


def test_distributed_without_a_process_group():
    import lazytensor.distributed as dist
    try:
        import lazytensor._distributed  # noqa: F401  built only when Gloo (libgloo-dev) is found
        built = True
    except ImportError:
        built = False
    assert dist.is_available() is built
    assert dist.is_initialized() is False == ref.distributed.is_initialized()
    with pytest.raises(RuntimeError, match="process group"):
        dist.get_rank()
    with pytest.raises(RuntimeError, match="process group"):
        dist.all_reduce(torch.ones(2))


def test_onnx_export_not_implemented():
    import lazytensor.onnx
    with pytest.raises(NotImplementedError, match="onnx.export"):
        lazytensor.onnx.export(torch.nn.Linear(2, 2), torch.ones(1, 2), "m.onnx")


def test_cuda_amp_imports_and_passthrough():
    import lazytensor.cuda.amp
    from lazytensor.cuda.amp import GradScaler, autocast
    assert lazytensor.cuda.amp.autocast is autocast
    with pytest.warns(UserWarning):
        ctx = autocast()
    with ctx:
        y = torch.ones(2) * 2
    assert y.tolist() == [2.0, 2.0]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")

        @autocast()
        def f(x):
            return x + 1
        assert f(torch.ones(2)).tolist() == [2.0, 2.0]

    p = torch.nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([p], lr=0.5)
    scaler = GradScaler(enabled=False)
    rscaler = ref.cuda.amp.GradScaler(enabled=False)
    loss = (p * p).sum()
    assert scaler.scale(loss) is loss
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    scaler.step(opt)
    scaler.update()
    assert p.tolist() == [0.0, 0.0]  # opt.step() ran: 1 - 0.5 * 2
    assert scaler.state_dict() == rscaler.state_dict()
    assert scaler.is_enabled() is rscaler.is_enabled() is False


def test_cuda_and_backends_modules_keep_members():
    import lazytensor.backends.cuda
    import lazytensor.backends.cudnn  # noqa: F401
    assert torch.cuda.is_available() is False and torch.cuda.device_count() == 0
    torch.cuda.manual_seed(0)
    torch.cuda.manual_seed_all(0)
    with pytest.raises(AssertionError, match="no CUDA device is available"):  # as torch's CPU build
        torch.cuda.synchronize()
    assert torch.backends.mps.is_available() is False
    assert torch.backends.cuda.is_built() is False
    assert torch.backends.cuda.matmul.allow_tf32 is ref.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    assert lazytensor.backends.cuda.matmul.allow_tf32 is True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    assert torch.backends.cudnn.benchmark is True
    torch.backends.cudnn.benchmark = False
    assert torch.backends.cudnn.deterministic is False


def test_compile_returns_argument():
    m = torch.nn.Linear(2, 2)
    assert torch.compile(m) is m
    assert torch.compile(m, mode="reduce-overhead") is m

    @torch.compile
    def f(x):
        return x * 3

    @torch.compile(mode="max-autotune")
    def g(x):
        return x - 1
    assert f(torch.ones(1)).tolist() == [3.0]
    assert g(torch.ones(1)).tolist() == [0.0]


def test_thread_knobs():
    n = torch.get_num_threads()
    assert isinstance(n, int) and n >= 1
    torch.set_num_threads(1)
    assert torch.get_num_threads() == 1
    torch.set_num_threads(n)
    assert torch.get_num_threads() == n
    assert torch.get_num_interop_threads() >= 1
    with pytest.raises(RuntimeError):
        torch.set_num_threads(0)


def test_random_sampler_huge_replacement_is_lazy():
    ds = list(range(7))
    s = torch.utils.data.RandomSampler(ds, replacement=True, num_samples=10 ** 10)
    t = time.perf_counter()
    first = [v for _, v in zip(range(100), iter(s))]
    assert time.perf_counter() - t < 1.0
    assert all(0 <= v < 7 for v in first)
    assert len(s) == 10 ** 10
    short = list(torch.utils.data.RandomSampler(ds, replacement=True, num_samples=70))
    assert len(short) == 70 and set(short) <= set(ds)


def test_assert_close_tolerances_and_message():
    tc = torch.testing
    tc.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-6]))
    ref.testing.assert_close(ref.tensor([1.0, 2.0]), ref.tensor([1.0, 2.0 + 1e-6]))
    with pytest.raises(AssertionError, match=r"Mismatched elements: 1 / 3 \(33.3%\)"):
        tc.assert_close(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.1, 3.0]))
    with pytest.raises(AssertionError, match=r"Mismatched elements: 1 / 3 \(33.3%\)"):
        ref.testing.assert_close(ref.tensor([1.0, 2.0, 3.0]), ref.tensor([1.0, 2.1, 3.0]))
    with pytest.raises(AssertionError, match="dtype"):
        tc.assert_close(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64))
    tc.assert_close(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64), check_dtype=False)
    nan = float("nan")
    with pytest.raises(AssertionError):
        tc.assert_close(torch.tensor([nan]), torch.tensor([nan]))
    tc.assert_close(torch.tensor([nan]), torch.tensor([nan]), equal_nan=True)
    with pytest.raises(AssertionError):  # integers compare exactly
        tc.assert_close(torch.tensor([1]), torch.tensor([2]))
    # float64's tolerance is tighter than float32's
    with pytest.raises(AssertionError):
        tc.assert_close(torch.tensor([1.0], dtype=torch.float64), torch.tensor([1.0 + 1e-5], dtype=torch.float64))
    with pytest.raises(AssertionError):
        ref.testing.assert_close(ref.tensor([1.0], dtype=ref.float64), ref.tensor([1.0 + 1e-5], dtype=ref.float64))
    tc.assert_close(torch.tensor([1.0]), torch.tensor([1.1]), rtol=0.2, atol=0.0)
    tc.assert_allclose(torch.tensor([1.0, nan]), [1.0, nan])


@pytest.mark.parametrize("name", ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor"])
def test_legacy_constructors(name):
    ctor, rctor = getattr(torch, name), getattr(ref, name)
    x, rx = ctor([1, 0, 2]), rctor([1, 0, 2])
    assert str(x.dtype) == str(rx.dtype)
    assert x.tolist() == rx.tolist()
    assert isinstance(x, ctor) and isinstance(rx, rctor)
    assert isinstance(x, torch.Tensor)
    assert x.type() == rx.type()
    e, re_ = ctor(2, 3), rctor(2, 3)
    assert tuple(e.shape) == tuple(re_.shape) == (2, 3) and str(e.dtype) == str(re_.dtype)
    assert tuple(ctor().shape) == tuple(rctor().shape) == (0,)
    other = "DoubleTensor" if name != "DoubleTensor" else "FloatTensor"
    assert not isinstance(x, getattr(torch, other)) and not isinstance(rx, getattr(ref, other))
    assert not isinstance([1.0], ctor)


def _rosenbrock(lib, x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_rosenbrock_matches_torch(line_search):
    results = []
    for lib in (torch, ref):
        x = lib.nn.Parameter(lib.tensor([-1.5, 2.0]))
        opt = lib.optim.LBFGS([x], lr=1 if line_search else 0.1, max_iter=20, history_size=5,
                              line_search_fn=line_search)

        def closure():
            opt.zero_grad()
            loss = _rosenbrock(lib, x)
            loss.backward()
            return loss
        # One step of 20 iterations: Rosenbrock amplifies float32 rounding differences past that.
        losses = [float(opt.step(closure)), float(closure())]
        results.append((x.detach().numpy().copy(), losses, opt.state[x]["func_evals"], opt.state[x]["n_iter"]))
        if line_search:
            for _ in range(3):
                opt.step(closure)
            np.testing.assert_allclose(x.detach().numpy(), [1.0, 1.0], atol=1e-3)
    (xl, ll, fl, nl), (xr, lr_, fr, nr) = results
    # float32 rounding drifts over 20 iterations of an ill-conditioned problem: a few 1e-4 relative
    np.testing.assert_allclose(ll, lr_, rtol=2e-3, atol=1e-5)
    np.testing.assert_allclose(xl, xr, rtol=2e-3, atol=1e-3)
    assert (nl, fl) == (nr, fr)


def test_lbfgs_least_squares_matches_torch():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((8, 3)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    out = []
    for lib in (torch, ref):
        w = lib.nn.Parameter(lib.zeros(3))
        At, bt = lib.tensor(A), lib.tensor(b)
        opt = lib.optim.LBFGS([w], history_size=3, max_iter=8)

        def closure():
            opt.zero_grad()
            loss = ((lib.matmul(At, w) - bt) ** 2).sum()
            loss.backward()
            return loss
        opt.step(closure)
        out.append(w.detach().numpy().copy())
    w = torch.nn.Parameter(torch.zeros(3))
    At, bt = torch.tensor(A), torch.tensor(b)
    opt = torch.optim.LBFGS([w], history_size=3, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = ((torch.matmul(At, w) - bt) ** 2).sum()
        loss.backward()
        return loss
    opt.step(closure)
    np.testing.assert_allclose(w.detach().numpy(), np.linalg.lstsq(A, b, rcond=None)[0], atol=1e-4)
    np.testing.assert_allclose(out[0], out[1], rtol=1e-4, atol=1e-5)


_RNG = np.random.default_rng(1)
_M = (_RNG.standard_normal((3, 3)) + 3 * np.eye(3)).astype(np.float32)
_SPD = (_M @ _M.T + np.eye(3)).astype(np.float32)
_R = _RNG.standard_normal((4, 3)).astype(np.float32)


def _cmp(a, b, tol=1e-4):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("name,arg", [("det", _M), ("inv", _M), ("cholesky", _SPD), ("eigvalsh", _SPD),
                                      ("svdvals", _R), ("pinv", _R), ("matrix_rank", _R)])
def test_linalg_values(name, arg):
    got = getattr(torch.linalg, name)(torch.tensor(arg))
    want = getattr(ref.linalg, name)(ref.tensor(arg))
    if name == "matrix_rank":
        assert int(got) == int(want) == 3
    else:
        _cmp(got, want)


def test_linalg_norms_and_products():
    x = _R
    for o in (None, 1, 2, 3.5, math.inf, -math.inf, 0):
        _cmp(torch.linalg.vector_norm(torch.tensor(x), o if o is not None else 2),
             ref.linalg.vector_norm(ref.tensor(x), o if o is not None else 2))
    _cmp(torch.linalg.vector_norm(torch.tensor(x), 2, dim=1, keepdim=True),
         ref.linalg.vector_norm(ref.tensor(x), 2, dim=1, keepdim=True))
    for o in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf):
        _cmp(torch.linalg.matrix_norm(torch.tensor(x), o), ref.linalg.matrix_norm(ref.tensor(x), o))
        _cmp(torch.linalg.norm(torch.tensor(x), o), ref.linalg.norm(ref.tensor(x), o))
    _cmp(torch.linalg.norm(torch.tensor(x)), ref.linalg.norm(ref.tensor(x)))
    a, b = _RNG.standard_normal((2, 3)).astype(np.float32), _RNG.standard_normal((2, 3)).astype(np.float32)
    _cmp(torch.linalg.cross(torch.tensor(a), torch.tensor(b)), ref.linalg.cross(ref.tensor(a), ref.tensor(b)))
    ms = [_R, _M, _SPD, _RNG.standard_normal(3).astype(np.float32)]
    _cmp(torch.linalg.multi_dot([torch.tensor(m) for m in ms]), ref.linalg.multi_dot([ref.tensor(m) for m in ms]))
    _cmp(torch.linalg.matmul(torch.tensor(_R), torch.tensor(_M)), ref.linalg.matmul(ref.tensor(_R), ref.tensor(_M)))


def test_linalg_decompositions_reconstruct():
    s, l = torch.linalg.slogdet(torch.tensor(_M))
    rs, rl = ref.linalg.slogdet(ref.tensor(_M))
    _cmp(s, rs)
    _cmp(l, rl)
    Q, R = torch.linalg.qr(torch.tensor(_R))
    np.testing.assert_allclose((Q @ R).numpy(), _R, atol=1e-5)
    w, V = torch.linalg.eigh(torch.tensor(_SPD))
    _cmp(w, ref.linalg.eigh(ref.tensor(_SPD)).eigenvalues)
    np.testing.assert_allclose((V @ torch.diag(w) @ V.T).numpy(), _SPD, atol=1e-4)
    U, S, Vh = torch.linalg.svd(torch.tensor(_R), full_matrices=False)
    np.testing.assert_allclose((U @ torch.diag(S) @ Vh).numpy(), _R, atol=1e-5)
    b = _RNG.standard_normal((4, 2)).astype(np.float32)
    _cmp(torch.linalg.lstsq(torch.tensor(_R), torch.tensor(b)).solution,
         ref.linalg.lstsq(ref.tensor(_R), ref.tensor(b)).solution)
    bb = _RNG.standard_normal(3).astype(np.float32)
    _cmp(torch.linalg.solve(torch.tensor(_M), torch.tensor(bb)), ref.linalg.solve(ref.tensor(_M), ref.tensor(bb)))
    with pytest.raises(RuntimeError, match="positive-definite"):
        torch.linalg.cholesky(torch.tensor(-_SPD))
    with pytest.raises(RuntimeError, match="gradients are not supported"):
        torch.linalg.eigh(torch.tensor(_SPD, requires_grad=True))


@pytest.mark.parametrize("name", ["det", "inv", "slogdet", "solve"])
def test_linalg_gradients_match_torch(name):
    B = _RNG.standard_normal((3, 2)).astype(np.float32)
    W = _RNG.standard_normal((3, 2) if name == "solve" else (3, 3)).astype(np.float32)
    grads = []
    for lib in (torch, ref):
        A = lib.tensor(_M, requires_grad=True)
        Bt = lib.tensor(B, requires_grad=True)
        if name == "det":
            y = lib.linalg.det(A)
        elif name == "slogdet":
            y = lib.linalg.slogdet(A).logabsdet
        elif name == "inv":
            y = (lib.linalg.inv(A) * lib.tensor(W)).sum()
        else:
            y = (lib.linalg.solve(A, Bt) * lib.tensor(W)).sum()
        y.backward()
        grads.append((float(y), A.grad.numpy().copy(), None if Bt.grad is None else Bt.grad.numpy().copy()))
    (yl, gl, bl), (yr, gr, br) = grads
    assert abs(yl - yr) < 1e-3 * max(1.0, abs(yr))
    np.testing.assert_allclose(gl, gr, rtol=1e-3, atol=1e-4)
    if name == "solve":
        np.testing.assert_allclose(bl, br, rtol=1e-3, atol=1e-4)


def test_sparse_coo_to_dense_mm_coalesce():
    idx = [[0, 1, 1, 2, 0], [2, 0, 2, 1, 2]]
    vals = [1.0, 2.0, 3.0, 4.0, 5.0]  # (0, 2) appears twice: summed
    s = torch.sparse_coo_tensor(idx, vals, (3, 3))
    rs = ref.sparse_coo_tensor(idx, vals, (3, 3))
    assert s.is_sparse and rs.is_sparse
    np.testing.assert_allclose(s.to_dense().numpy(), rs.to_dense().numpy())
    c, rc = s.coalesce(), rs.coalesce()
    assert c.indices().tolist() == rc.indices().tolist()
    assert c.values().tolist() == rc.values().tolist()
    assert s._values().tolist() == vals and s._indices().tolist() == idx
    with pytest.raises(RuntimeError, match="coalesce"):
        s.values()
    d = _RNG.standard_normal((3, 4)).astype(np.float32)
    _cmp(torch.sparse.mm(s, torch.tensor(d)), ref.sparse.mm(rs, ref.tensor(d)))
    _cmp(torch.spmm(s, torch.tensor(d)), ref.spmm(rs, ref.tensor(d)))
    # gradient through the dense operand
    dl, dr = torch.tensor(d, requires_grad=True), ref.tensor(d, requires_grad=True)
    (torch.sparse.mm(s, dl) ** 2).sum().backward()
    (ref.sparse.mm(rs, dr) ** 2).sum().backward()
    _cmp(dl.grad, dr.grad)
    assert tuple(s.shape) == (3, 3)
    with pytest.raises(RuntimeError):
        torch.sparse_coo_tensor([[0, 3]], [1.0, 2.0], (3,))
