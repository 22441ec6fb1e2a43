"""The aliases and short compositions of docs/python.md "Coverage against PyTorch 1.13" (names from the list of
tools/api_sweep.py, built from existing lazy ops): values, dtypes, shapes, gradients and exception types against
PyTorch 1.13. `agree(f, arrays)` calls f(torch) and f(lazytensor) on the same data and compares values and the
gradients of every float input."""
import math

import numpy as np
import pytest
import torch

import lazytensor as lt
from conftest import agree, arr, assert_same, pair, raises_like


def f64(*shape):
    return arr(shape, "float64")


# ---- torch.* functions -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)], ids=str)
def test_atleast_nd_adds_dims_where_torch_does(name, shape):
    agree(lambda m, x: getattr(m, name)(x), [f64(*shape)])
    agree(lambda m, x, y: getattr(m, name)(x, y), [f64(*shape), f64(2)])
    agree(lambda m, x, y: getattr(m, name)([x, y]), [f64(*shape), f64(2)])


def test_atleast_nd_rejects_a_non_tensor():
    raises_like(lambda: lt.atleast_2d(3), lambda: torch.atleast_2d(3))


def test_block_diag_places_blocks_and_promotes():
    agree(lambda m, a, b, c: m.block_diag(a, b, c), [f64(2, 3), f64(4), f64()])
    agree(lambda m, a, b: m.block_diag(a, b), [arr((2, 2), "int32"), arr((1, 3), "float32")], grad=False)
    assert_same(lt.block_diag(), torch.block_diag())


def test_block_diag_rejects_3d_blocks():
    raises_like(lambda: lt.block_diag(lt.zeros(2, 2, 2)), lambda: torch.block_diag(torch.zeros(2, 2, 2)))


def test_row_stack_is_vstack():
    agree(lambda m, a, b: m.row_stack([a, b]), [f64(3), f64(3)])
    agree(lambda m, a, b: m.row_stack((a, b)), [f64(2, 3), f64(1, 3)])


@pytest.mark.parametrize("r", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations_in_itertools_order(r, with_replacement):
    agree(lambda m, x: m.combinations(x, r, with_replacement), [f64(4)])
    agree(lambda m, x: m.combinations(x, r=r, with_replacement=with_replacement), [arr((3,), "int64")],
          grad=False)


def test_combinations_rejects_2d_input():
    raises_like(lambda: lt.combinations(lt.zeros(2, 2)), lambda: torch.combinations(torch.zeros(2, 2)))


def test_split_with_sizes_and_unsafe_split_chunk():
    agree(lambda m, x: m.split_with_sizes(x, [1, 3], 1), [f64(2, 4)])
    agree(lambda m, x: x.split_with_sizes([2, 2], dim=1), [f64(2, 4)])
    agree(lambda m, x: m.unsafe_split(x, 3), [f64(7, 2)])
    agree(lambda m, x: m.unsafe_chunk(x, 3, 1), [f64(2, 7)])
    agree(lambda m, x: x.unsafe_split_with_sizes([5, 2]), [f64(7, 2)])
    raises_like(lambda: lt.split_with_sizes(lt.zeros(4), [1, 2]), lambda: torch.split_with_sizes(torch.zeros(4), [1, 2]))


@pytest.mark.parametrize("kw", [{}, {"dx": 0.5}, {"dim": 0}])
def test_trapz_and_cumulative_trapezoid_with_spacing(kw):
    agree(lambda m, y: m.trapz(y, **kw), [f64(3, 5)])
    agree(lambda m, y: m.cumulative_trapezoid(y, **kw), [f64(3, 5)])


def test_trapz_and_cumulative_trapezoid_with_sample_points():
    x = np.sort(f64(5))
    agree(lambda m, y, x: m.trapz(y, x), [f64(3, 5), x])
    agree(lambda m, y, x: m.cumulative_trapezoid(y, x), [f64(3, 5), x])
    agree(lambda m, y, x: m.cumulative_trapezoid(y, x, dim=0), [f64(5, 2), x])
    agree(lambda m, y: m.cumulative_trapezoid(y), [arr((2, 4), "int64")], grad=False)


def test_cumulative_trapezoid_rejects_a_0d_input():
    raises_like(lambda: lt.cumulative_trapezoid(lt.tensor(1.0)), lambda: torch.cumulative_trapezoid(torch.tensor(1.0)))


@pytest.mark.parametrize("dt", ["float64", "int32", "int64"])
def test_aminmax_whole_and_along_a_dim(dt):
    # PyTorch 1.13 has no derivative for aminmax; here it is amin's and amax's
    agree(lambda m, x: m.aminmax(x), [arr((3, 4), dt)], grad=False)
    agree(lambda m, x: x.aminmax(dim=1), [arr((3, 4), dt)], grad=False)
    agree(lambda m, x: m.aminmax(x, dim=0, keepdim=True), [arr((3, 4), dt)], grad=False)
    r = lt.aminmax(lt.tensor([1.0, 5.0]))
    assert (r.min.item(), r.max.item()) == (1.0, 5.0)


def test_aminmax_rejects_an_empty_input():
    raises_like(lambda: lt.aminmax(lt.zeros(0)), lambda: torch.aminmax(torch.zeros(0)))


@pytest.mark.parametrize("p", [2, 1, 3.5, 0, math.inf, -math.inf])
def test_dist_is_the_p_norm_of_the_difference(p):
    agree(lambda m, a, b: m.dist(a, b, p), [f64(3, 4), f64(4)], grad=p != 0)
    agree(lambda m, a, b: a.dist(b, p=p), [arr((3,), "float32"), arr((3,), "float32")], grad=False)


def test_dist_rejects_shapes_that_do_not_broadcast():
    raises_like(lambda: lt.dist(lt.zeros(3), lt.zeros(4)), lambda: torch.dist(torch.zeros(3), torch.zeros(4)))


def test_corrcoef_of_rows_and_of_one_row():
    agree(lambda m, x: m.corrcoef(x), [f64(3, 6)])
    agree(lambda m, x: x.corrcoef(), [f64(6)])
    agree(lambda m, x: m.corrcoef(x), [arr((2, 5), "int64")], grad=False)


def test_corrcoef_rejects_3d_input():
    raises_like(lambda: lt.corrcoef(lt.zeros(2, 2, 2)), lambda: torch.corrcoef(torch.zeros(2, 2, 2)))


def test_addr_scales_the_outer_product():
    agree(lambda m, a, u, v: m.addr(a, u, v), [f64(3, 4), f64(3), f64(4)])
    agree(lambda m, a, u, v: a.addr(u, v, beta=0.5, alpha=2), [f64(3, 4), f64(3), f64(4)])
    agree(lambda m, a, u, v: a.clone().addr_(u, v, alpha=-1), [f64(3, 4), f64(3), f64(4)])
    raises_like(lambda: lt.addr(lt.zeros(3, 4), lt.zeros(3, 1), lt.zeros(4)),
                lambda: torch.addr(torch.zeros(3, 4), torch.zeros(3, 1), torch.zeros(4)))


def test_constants():
    assert (lt.e, lt.pi, lt.inf) == (torch.e, torch.pi, torch.inf)
    assert math.isnan(lt.nan)


def test_detach_is_same_size_is_signed_is_nonzero():
    a, b = pair(f64(2, 3), requires_grad=True)
    assert not lt.detach(a).requires_grad
    assert lt.is_same_size(a, a) and not lt.is_same_size(a, a.t())
    assert a.is_same_size(a) == b.is_same_size(b)
    for dt in ("float32", "int32", "bool"):
        x, y = pair(arr((2,), dt))
        assert lt.is_signed(x) == torch.is_signed(y) and x.is_signed() == y.is_signed()
    assert lt.is_nonzero(lt.tensor([2.0])) is torch.is_nonzero(torch.tensor([2.0]))
    raises_like(lambda: lt.is_nonzero(lt.zeros(2)), lambda: torch.is_nonzero(torch.zeros(2)))


# ---- linear algebra under torch.* ---------------------------------------------------------------------------------

def _well_conditioned(*batch, n=3):
    return f64(*batch, n, n) + 3 * np.eye(n)


@pytest.mark.parametrize("name", ["det", "logdet", "inverse", "pinverse"])
def test_linalg_names_under_torch(name):
    agree(lambda m, a: getattr(m, name)(a), [_well_conditioned(2)], grad=name != "pinverse")
    agree(lambda m, a: getattr(a, name)(), [_well_conditioned()], grad=name != "pinverse")


def test_slogdet_and_logdet_of_negative_and_singular_matrices():
    agree(lambda m, a: m.slogdet(a), [_well_conditioned(2)])
    neg = np.diag([-1.0, 2.0, 3.0])
    agree(lambda m, a: m.logdet(a), [np.stack([neg, np.zeros((3, 3)), np.eye(3)])], grad=False)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -2])
def test_matrix_power(n):
    agree(lambda m, a: m.matrix_power(a, n), [_well_conditioned(2)])
    agree(lambda m, a: a.matrix_power(n), [arr((3, 3), "int64")] if n >= 0 else [_well_conditioned()],
          grad=False)


def test_matrix_power_rejects_a_non_square_matrix():
    raises_like(lambda: lt.matrix_power(lt.zeros(2, 3), 2), lambda: torch.matrix_power(torch.zeros(2, 3), 2))


def test_chain_matmul():
    agree(lambda m, a, b, c: m.chain_matmul(a, b, c), [f64(2, 3), f64(3, 4), f64(4, 2)])
    agree(lambda m, a: m.chain_matmul(a), [f64(2, 3)])
    raises_like(lambda: lt.chain_matmul(lt.zeros(2)), lambda: torch.chain_matmul(torch.zeros(2)))


# ---- Tensor methods -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_", "less_",
                                  "less_equal_", "not_equal_", "logical_and_", "logical_or_", "logical_xor_"])
@pytest.mark.parametrize("dt", ["float32", "int64", "bool"])
def test_inplace_comparisons_keep_the_dtype(name, dt):
    x, y = arr((3, 4), dt), arr((4,), dt)
    a, b = pair(x)
    c, d = pair(y)
    assert getattr(a, name)(c) is a
    getattr(b, name)(d)
    assert_same(a, b)
    a, b = pair(x)
    if not name.startswith("logical"):  # logical_*_ take tensors only, as in PyTorch
        getattr(a, name)(1)
        getattr(b, name)(1)
        assert_same(a, b)


@pytest.mark.parametrize("name,args", [("multiply_", (2.5,)), ("subtract_", (1.5,)), ("negative_", ()),
                                       ("absolute_", ()), ("heaviside_", ("values",))])
def test_inplace_arithmetic_aliases(name, args):
    def f(m, x, v):
        y = x * 1
        return getattr(y, name)(*[v if a == "values" else a for a in args])
    # heaviside has no derivative in PyTorch; absolute_ after a saved product is the abs_ limitation (the
    # product saved its result, which abs_ then overwrites: RuntimeError at backward)
    agree(f, [f64(3, 4), f64(4)], grad=name not in ("heaviside_", "absolute_"))


def test_inplace_comparison_rejects_a_shape_that_would_grow():
    raises_like(lambda: lt.zeros(3).eq_(lt.zeros(2, 3)), lambda: torch.zeros(3).eq_(torch.zeros(2, 3)))


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((5, 3), False), ((5, 3), True), ((7, 3), True),
                                        ((3, 5), True), ((3, 3, 3), False), ((1, 4), False)], ids=str)
def test_fill_diagonal_(shape, wrap):
    a, b = pair(f64(*shape))
    assert a.fill_diagonal_(2.5, wrap) is a
    b.fill_diagonal_(2.5, wrap)
    assert_same(a, b)
    a, b = pair(arr(shape, "int64"))
    assert_same(a.fill_diagonal_(7, wrap=wrap), b.fill_diagonal_(7, wrap=wrap))


def test_fill_diagonal_gradient_is_zero_on_the_diagonal():
    agree(lambda m, x: (x * 1).fill_diagonal_(0.5), [f64(4, 3)])


def test_fill_diagonal_rejects_unequal_dims_above_2d():
    raises_like(lambda: lt.zeros(2, 3, 3).fill_diagonal_(1), lambda: torch.zeros(2, 3, 3).fill_diagonal_(1))
    raises_like(lambda: lt.zeros(3).fill_diagonal_(1), lambda: torch.zeros(3).fill_diagonal_(1))


@pytest.mark.parametrize("size", [(3, 1), (1, 4), (4,), (2, 3, 4), (1, 1, 1), ()], ids=str)
def test_sum_to_size(size):
    if size:
        agree(lambda m, x: x.sum_to_size(*size), [f64(2, 3, 4)])
    agree(lambda m, x: x.sum_to_size(size), [f64(2, 3, 4)])


def test_sum_to_size_rejects_a_size_it_cannot_reach():
    raises_like(lambda: lt.zeros(2, 3).sum_to_size(2), lambda: torch.zeros(2, 3).sum_to_size(2))


def test_broadcast_to_method():
    agree(lambda m, x: x.broadcast_to((2, 3, 4)), [f64(3, 1)])
    raises_like(lambda: lt.zeros(3).broadcast_to((2,)), lambda: torch.zeros(3).broadcast_to((2,)))


def test_bernoulli_and_multinomial_methods():
    lt.manual_seed(0)
    p = lt.full((4000,), 0.25)
    assert abs(p.bernoulli().mean().item() - 0.25) < 0.03
    assert abs(lt.zeros(4000).bernoulli(0.75).mean().item() - 0.75) < 0.03
    probs = lt.tensor([0.0, 1.0, 3.0])
    draws = probs.multinomial(2000, replacement=True)
    assert draws.dtype == lt.int64 and draws.shape == (2000,)
    assert (draws != 0).all().item() and abs((draws == 2).float().mean().item() - 0.75) < 0.04


# ---- nn.functional and torch.* nn ops -----------------------------------------------------------------------------

@pytest.mark.parametrize("lambd", [0.5, 0.0, 1.2])
def test_hardshrink_softshrink(lambd):
    x = np.concatenate([f64(10), [lambd, -lambd, 0.0]])
    agree(lambda m, x: m.nn.functional.hardshrink(x, lambd), [x])
    agree(lambda m, x: m.nn.functional.softshrink(x, lambd), [x])
    agree(lambda m, x: m.hardshrink(x, lambd), [x])
    agree(lambda m, x: x.hardshrink(lambd), [x.astype(np.float32)])


def test_softshrink_rejects_a_negative_lambda():
    raises_like(lambda: lt.nn.functional.softshrink(lt.zeros(2), -1.0),
                lambda: torch.nn.functional.softshrink(torch.zeros(2), -1.0))


def test_rrelu_eval_is_the_mean_slope_and_training_draws_slopes_in_range():
    agree(lambda m, x: m.nn.functional.rrelu(x), [f64(20)])
    agree(lambda m, x: m.rrelu(x, 0.1, 0.3), [f64(20)])
    lt.manual_seed(0)
    x = -lt.ones(2000)
    y = lt.nn.functional.rrelu(x, 0.1, 0.3, training=True)
    assert ((y <= -0.1).all().item() and (y >= -0.3).all().item() and abs(y.mean().item() + 0.2) < 0.01)
    m = lt.nn.RReLU(0.1, 0.3)
    assert abs(m.eval()(x).mean().item() + 0.2) < 1e-6 and repr(m) == repr(torch.nn.RReLU(0.1, 0.3))


@pytest.mark.parametrize("name,args", [("relu_", ()), ("elu_", (0.7,)), ("leaky_relu_", (0.2,)),
                                       ("hardtanh_", (-0.5, 0.5)), ("selu_", ()), ("celu_", (1.5,)),
                                       ("threshold_", (0.1, -2.0)), ("rrelu_", ())])
def test_functional_inplace_activations_write_the_input(name, args):
    a, b = pair(f64(3, 4))
    out = getattr(lt.nn.functional, name)(a, *args)
    getattr(torch.nn.functional, name)(b, *args)
    assert out is a
    assert_same(a, b)


@pytest.mark.parametrize("lead", [(4,), (2, 3), ()], ids=str)
def test_bilinear(lead):
    agree(lambda m, x1, x2, w, b: m.nn.functional.bilinear(x1, x2, w, b),
          [f64(*lead, 3), f64(*lead, 2), f64(5, 3, 2), f64(5)])
    agree(lambda m, x1, x2, w: m.bilinear(x1, x2, w), [f64(*lead, 3), f64(*lead, 2), f64(5, 3, 2)])


def test_bilinear_rejects_mismatched_batches():
    raises_like(lambda: lt.nn.functional.bilinear(lt.zeros(2, 3), lt.zeros(3, 2), lt.zeros(4, 3, 2)),
                lambda: torch.nn.functional.bilinear(torch.zeros(2, 3), torch.zeros(3, 2), torch.zeros(4, 3, 2)))


def test_bilinear_module_matches_torch_with_torch_weights():
    tm = torch.nn.Bilinear(3, 2, 4).double()
    lm = lt.nn.Bilinear(3, 2, 4, dtype=lt.float64)
    lm.load_state_dict({k: lt.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    assert [(k, tuple(v.shape)) for k, v in lm.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in tm.state_dict().items()]
    x1, x2 = f64(5, 3), f64(5, 2)
    assert_same(lm(lt.from_numpy(x1), lt.from_numpy(x2)), tm(torch.from_numpy(x1), torch.from_numpy(x2)))
    assert repr(lm) == repr(tm)
    bound = 1 / math.sqrt(3)
    fresh = lt.nn.Bilinear(3, 2, 4, bias=False)
    assert fresh.bias is None and fresh.weight.abs().max().item() <= bound


def test_dropout3d_drops_whole_channels():
    lt.manual_seed(0)
    x = lt.ones(4, 50, 2, 2, 2)
    y = lt.nn.functional.dropout3d(x, 0.5)
    per_channel = y.reshape(4, 50, 8)
    assert (per_channel.amax(-1) == per_channel.amin(-1)).all().item()
    assert set(np.unique(y.numpy()).tolist()) <= {0.0, 2.0}
    assert lt.nn.Dropout3d(0.5).eval()(x).equal(x)
    with pytest.warns(UserWarning, match="dropout3d"):
        y = lt.nn.functional.dropout3d(lt.ones(40, 3), 0.5)  # unbatched, channels first, as PyTorch
    assert (y.amax(1) == y.amin(1)).all().item()
    raises_like(lambda: lt.nn.functional.dropout3d(lt.tensor(1.0), 0.5),
                lambda: torch.nn.functional.dropout3d(torch.tensor(1.0), 0.5))


@pytest.mark.parametrize("shape,size", [((2, 3, 10), 4), ((3, 7), 3), ((1, 2, 5), 5), ((2, 2, 6), (2,))],
                         ids=str)
def test_adaptive_max_pool1d(shape, size):
    agree(lambda m, x: m.nn.functional.adaptive_max_pool1d(x, size), [f64(*shape)])
    agree(lambda m, x: m.nn.functional.adaptive_max_pool1d(x, size, return_indices=True), [f64(*shape)])
    agree(lambda m, x: m.nn.AdaptiveMaxPool1d(size, True)(x), [f64(*shape)])
    agree(lambda m, x: m.adaptive_max_pool1d(x, size), [f64(*shape)])


def test_adaptive_max_pool1d_rejects_4d_input():
    raises_like(lambda: lt.nn.functional.adaptive_max_pool1d(lt.zeros(1, 2, 3, 4), 2),
                lambda: torch.nn.functional.adaptive_max_pool1d(torch.zeros(1, 2, 3, 4), 2))


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_pool_with_indices_forms(nd):
    shape = (2, 3) + (6,) * nd
    name = "max_pool{}d_with_indices".format(nd)
    agree(lambda m, x: getattr(m.nn.functional, name)(x, 2), [f64(*shape)])
    agree(lambda m, x: getattr(m.nn.functional, name)(x, 3, stride=2, padding=1), [f64(*shape)])
    agree(lambda m, x: getattr(m, "max_pool{}d".format(nd))(x, 2), [f64(*shape)])
    agree(lambda m, x: m.nn.functional.adaptive_max_pool2d_with_indices(x, 3), [f64(2, 3, 6, 5)])


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
def test_lp_pool(p):
    x1, x2 = np.abs(f64(2, 3, 9)) + 0.1, np.abs(f64(2, 3, 6, 7)) + 0.1
    agree(lambda m, x: m.nn.functional.lp_pool1d(x, p, 3), [x1])
    agree(lambda m, x: m.nn.functional.lp_pool1d(x, p, 3, stride=2, ceil_mode=True), [x1])
    agree(lambda m, x: m.nn.functional.lp_pool2d(x, p, (2, 3)), [x2])
    agree(lambda m, x: m.nn.LPPool2d(p, 2, stride=1)(x), [x2])
    agree(lambda m, x: m.nn.LPPool1d(p, 2)(x), [x1])
    assert repr(lt.nn.LPPool2d(p, 2)) == repr(torch.nn.LPPool2d(p, 2))


def test_lp_pool_rejects_a_kernel_larger_than_the_input():
    raises_like(lambda: lt.nn.functional.lp_pool1d(lt.ones(1, 1, 2), 2.0, 3),
                lambda: torch.nn.functional.lp_pool1d(torch.ones(1, 1, 2), 2.0, 3))


def test_batchnorm3d_and_instancenorm3d():
    x = f64(2, 3, 2, 3, 2)
    for train in (True, False):
        def f(m, x, train=train):
            layer = m.nn.BatchNorm3d(3).double() if m is torch else m.nn.BatchNorm3d(3, dtype=lt.float64)
            layer.train(train)
            return layer(x), layer.running_mean, layer.running_var
        agree(f, [x])
    agree(lambda m, x: m.nn.InstanceNorm3d(3)(x), [x])
    agree(lambda m, x: m.nn.InstanceNorm3d(3)(x), [f64(3, 2, 3, 2)])
    raises_like(lambda: lt.nn.BatchNorm3d(3)(lt.zeros(2, 3, 4)), lambda: torch.nn.BatchNorm3d(3)(torch.zeros(2, 3, 4)))


def test_shrink_modules():
    for name in ("Hardshrink", "Softshrink"):
        agree(lambda m, x: getattr(m.nn, name)(0.3)(x), [f64(3, 4)])
        assert repr(getattr(lt.nn, name)(0.3)) == repr(getattr(torch.nn, name)(0.3))


# torch.* names of nn.functional ops, with torch's own argument orders
def test_torch_level_conv_and_shuffle_ops():
    agree(lambda m, x, w, b: m.conv2d(x, w, b, 1, 1), [f64(1, 2, 5, 5), f64(3, 2, 3, 3), f64(3)])
    agree(lambda m, x, w: m.conv1d(x, w, None, 2), [f64(1, 2, 7), f64(3, 2, 3)])
    agree(lambda m, x, w: m.conv_transpose2d(x, w, None, 2), [f64(1, 2, 3, 3), f64(2, 3, 2, 2)])
    agree(lambda m, x: m.pixel_shuffle(x, 2), [f64(1, 8, 2, 2)])
    agree(lambda m, x: m.pixel_unshuffle(x, 2), [f64(1, 2, 4, 4)])
    agree(lambda m, x: m.channel_shuffle(x, 2), [f64(1, 4, 2, 2)], grad=False)


def test_torch_level_activations_and_distances():
    agree(lambda m, x: m.selu(x), [f64(3, 4)])
    agree(lambda m, x: m.celu(x, 0.5), [f64(3, 4)])
    agree(lambda m, x: m.threshold(x, 0.2, -1.0), [f64(3, 4)])
    agree(lambda m, x, w: m.prelu(x, w), [f64(2, 3, 4), np.full(3, 0.25)])
    agree(lambda m, x, w: x.prelu(w), [f64(2, 3, 4), np.full(1, 0.25)])
    agree(lambda m, a, b: m.cosine_similarity(a, b), [f64(3, 4), f64(3, 4)])
    agree(lambda m, a, b: m.pairwise_distance(a, b), [f64(3, 4), f64(3, 4)])
    agree(lambda m, x: m.alpha_dropout(x, 0.5, False), [f64(3, 4)])


def test_torch_level_pooling_and_norms():
    agree(lambda m, x: m.avg_pool1d(x, 2), [f64(1, 2, 6)])
    agree(lambda m, x: m.adaptive_avg_pool1d(x, 3), [f64(1, 2, 7)])
    agree(lambda m, x: m.max_pool1d_with_indices(x, 2), [f64(1, 2, 6)])
    agree(lambda m, x, w, b: m.layer_norm(x, [4], w, b, 1e-5, False), [f64(3, 4), f64(4), f64(4)])
    agree(lambda m, x, w, b: m.group_norm(x, 2, w, b, 1e-5, False), [f64(2, 4, 3), f64(4), f64(4)])
    agree(lambda m, x, w, b, rm, rv: m.batch_norm(x, w, b, rm, rv, False, 0.1, 1e-5, False),
          [f64(4, 3), f64(3), f64(3), f64(3), np.abs(f64(3)) + 0.5], grad=False)
    agree(lambda m, x, w, b: m.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
          [f64(4, 3), f64(3), f64(3)])
    agree(lambda m, x, w, b: m.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
          [f64(2, 3, 5), f64(3), f64(3)])
    agree(lambda m, w, i: m.embedding(w, i), [f64(5, 3), np.array([[0, 4], [2, 2]])])
    raises_like(lambda: lt.conv2d(lt.zeros(1, 2, 5, 5), lt.zeros(3, 4, 3, 3)),
                lambda: torch.conv2d(torch.zeros(1, 2, 5, 5), torch.zeros(3, 4, 3, 3)))


@pytest.mark.parametrize("p", [2, 1, 3.0, 0, math.inf])
def test_pdist(p):
    agree(lambda m, x: m.nn.functional.pdist(x, p), [f64(5, 3)], grad=p != 0)
    agree(lambda m, x: m.pdist(x, p), [arr((4, 2), "float32")], grad=p != 0)
    agree(lambda m, x: m.pdist(x), [f64(1, 3)])


def test_pdist_gradient_at_equal_rows_is_zero():
    agree(lambda m, x: m.pdist(x), [np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]])])


def test_pdist_rejects_3d_input():
    raises_like(lambda: lt.pdist(lt.zeros(2, 2, 2)), lambda: torch.pdist(torch.zeros(2, 2, 2)))


def test_gumbel_softmax_samples_the_softmax_and_hard_is_one_hot():
    lt.manual_seed(0)
    logits = lt.log(lt.tensor([0.1, 0.2, 0.7])).expand(4000, 3)
    y = lt.nn.functional.gumbel_softmax(logits, tau=0.5)
    assert y.shape == (4000, 3) and (y.sum(-1) - 1).abs().max().item() < 1e-5
    picks = y.argmax(-1)
    freq = [(picks == k).float().mean().item() for k in range(3)]
    assert np.allclose(freq, [0.1, 0.2, 0.7], atol=0.03)
    x = lt.zeros(5, 3, requires_grad=True)
    h = lt.nn.functional.gumbel_softmax(x, hard=True)
    assert set(np.unique(h.detach().numpy()).tolist()) == {0.0, 1.0} and (h.sum(-1) == 1).all().item()
    (h * lt.arange(3.0)).sum().backward()
    assert x.grad is not None and x.grad.abs().sum().item() > 0


def test_torch_level_inplace_functions():
    for name, args in (("sigmoid_", ()), ("clamp_", (-0.5, 0.5)), ("relu_", ()), ("fill_", (2.0,)),
                       ("zero_", ()), ("selu_", ()), ("celu_", (0.5,)), ("threshold_", (0.1, 3.0))):
        a, b = pair(f64(3, 4))
        assert getattr(lt, name)(a, *args) is a
        getattr(torch, name)(b, *args)
        assert_same(a, b)
    a, b = pair(f64(3, 4))
    assert_same(lt.dropout_(a, 0.5, False), torch.dropout_(b, 0.5, False))
    raises_like(lambda: lt.dropout_(lt.zeros(2), 1.5, True), lambda: torch.dropout_(torch.zeros(2), 1.5, True))


def _with_nan_rows(x):
    x = x.copy()
    x[1, 2] = np.nan
    x[3, :] = np.nan
    return x


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (None, True), (1, False), (0, True), (-1, True)], ids=str)
def test_quantile_values_and_shapes(name, interpolation, dim, keepdim):
    x = _with_nan_rows(f64(4, 5))
    for q in (0.3, 0.375, 0.5, 1.0):
        agree(lambda m, x: getattr(m, name)(x, q, dim, keepdim, interpolation=interpolation), [x], grad=False)
    agree(lambda m, x, q: getattr(x, name)(q, dim, keepdim, interpolation=interpolation),
          [x, np.array([0.0, 0.25, 0.625, 1.0])], grad=False)


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile_gradient_reaches_the_sorted_neighbours(name):
    agree(lambda m, x: getattr(m, name)(x, 0.4, dim=1), [f64(3, 6)])
    agree(lambda m, x, q: getattr(m, name)(x, q), [f64(7), np.array([0.1, 0.9])], grad=False)
    agree(lambda m, x: getattr(m, name)(x, 0.5, interpolation="midpoint"), [f64(6)])
    agree(lambda m, x: getattr(m, name)(x, 0.25), [np.array(2.5)])


@pytest.mark.parametrize("call", [lambda m: m.quantile(m.zeros(3), 1.5), lambda m: m.quantile(m.zeros(0), 0.5),
                                  lambda m: m.quantile(m.zeros(3, dtype=m.int64), 0.5),
                                  lambda m: m.nanquantile(m.zeros(3), 0.5, interpolation="cubic"),
                                  lambda m: m.quantile(m.zeros(3), m.zeros(1, dtype=m.float64)),
                                  lambda m: m.quantile(m.zeros(3), 0.5, dim=2)])
def test_quantile_rejects_bad_input(call):
    raises_like(lambda: call(lt), lambda: call(torch))


@pytest.mark.parametrize("shape,size", [((2, 3, 4, 4, 4), 2), ((3, 5, 6, 7), (2, 3, 4)), ((1, 2, 3, 4, 5), (None, 2, 5))],
                         ids=str)
def test_adaptive_avg_pool3d(shape, size):
    agree(lambda m, x: m.nn.functional.adaptive_avg_pool3d(x, size), [f64(*shape)])
    agree(lambda m, x: m.nn.AdaptiveAvgPool3d(size)(x), [f64(*shape)])


def test_adaptive_avg_pool3d_rejects_2d_input():
    raises_like(lambda: lt.nn.functional.adaptive_avg_pool3d(lt.zeros(3, 4), 2),
                lambda: torch.nn.functional.adaptive_avg_pool3d(torch.zeros(3, 4), 2))


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_triplet_margin_with_distance_loss(swap, reduction):
    arrays = [f64(4, 3), f64(4, 3), f64(4, 3)]
    agree(lambda m, a, p, n: m.nn.functional.triplet_margin_with_distance_loss(a, p, n, swap=swap,
                                                                               reduction=reduction), arrays)
    cosine = lambda m: (lambda x, y: 1 - m.nn.functional.cosine_similarity(x, y))  # noqa: E731
    agree(lambda m, a, p, n: m.nn.TripletMarginWithDistanceLoss(distance_function=cosine(m), margin=0.5, swap=swap,
                                                                reduction=reduction)(a, p, n), arrays)


def test_triplet_margin_with_distance_loss_rejects_an_unknown_reduction():
    raises_like(lambda: lt.nn.functional.triplet_margin_with_distance_loss(lt.zeros(2, 3), lt.zeros(2, 3),
                                                                           lt.zeros(2, 3), reduction="avg"),
                lambda: torch.nn.functional.triplet_margin_with_distance_loss(torch.zeros(2, 3), torch.zeros(2, 3),
                                                                              torch.zeros(2, 3), reduction="avg"))
