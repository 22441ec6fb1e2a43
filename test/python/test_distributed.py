"""lazytensor.distributed on Gloo over loopback: every collective against the same computation done in one
process (integers bit-exact), DDP training against one process on the full batch, the sampler against torch's,
and the failures: no process group, ranks that disagree, a rank that dies, a launcher child that fails.

Multi-process cases run a worker script (written to tmp_path) under `python -m lazytensor.distributed.run`,
or as plain subprocesses where the launcher would get in the way; each rank saves what it computed to an
.npz file that the test compares."""
import os
import pickle
import signal
import socket
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import torch as ref

import lazytensor as torch
import lazytensor.distributed as dist

pytestmark = pytest.mark.skipif(not dist.is_available(), reason="lazytensor built without Gloo (libgloo-dev)")

PYTHONPATH = os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__)))
DTYPES = ["float32", "float64", "int32", "int64"]

WORKER = r'''
import os, pickle, sys, time
import numpy as np
import lazytensor as torch
import lazytensor.distributed as dist

scenario, out = sys.argv[1], sys.argv[2]
DTYPES = ["float32", "float64", "int32", "int64"]


def data(rank, dtype, shape=(3, 5)):
    rs = np.random.RandomState(100 + rank)
    if dtype.startswith("int"):
        return rs.randint(-1000, 1000, size=shape).astype(dtype)
    return rs.uniform(-2, 2, size=shape).astype(dtype)


def small(rank, dtype):  # for PRODUCT: no overflow, products near 1
    rs = np.random.RandomState(200 + rank)
    if dtype.startswith("int"):
        return rs.randint(-3, 4, size=(7,)).astype(dtype)
    return rs.uniform(0.5, 1.5, size=(7,)).astype(dtype)


def collectives():
    dist.init_process_group("gloo", timeout=__import__("datetime").timedelta(seconds=20))
    r, w = dist.get_rank(), dist.get_world_size()
    res = {}
    for dt in DTYPES:
        for name, op in [("sum", dist.ReduceOp.SUM), ("max", dist.ReduceOp.MAX), ("min", dist.ReduceOp.MIN)]:
            t = torch.from_numpy(data(r, dt))
            assert dist.all_reduce(t, op=op) is None
            res[f"all_reduce_{name}_{dt}"] = t.numpy()
        t = torch.from_numpy(small(r, dt))
        dist.all_reduce(t, op=dist.ReduceOp.PRODUCT)
        res[f"all_reduce_product_{dt}"] = t.numpy()
        if dt.startswith("float"):
            t = torch.from_numpy(data(r, dt))
            dist.all_reduce(t, op=dist.ReduceOp.AVG)
            res[f"all_reduce_avg_{dt}"] = t.numpy()
        t = torch.from_numpy(data(r, dt))
        dist.broadcast(t, src=w - 1)
        res[f"broadcast_{dt}"] = t.numpy()
        outs = [torch.zeros(3, 5, dtype=getattr(torch, dt)) for _ in range(w)]
        dist.all_gather(outs, torch.from_numpy(data(r, dt)))
        res[f"all_gather_{dt}"] = np.stack([o.numpy() for o in outs])
        o = torch.zeros(3, 5, dtype=getattr(torch, dt))
        dist.reduce_scatter(o, [torch.from_numpy(data(r * w + k, dt)) for k in range(w)])
        res[f"reduce_scatter_{dt}"] = o.numpy()
        gl = [torch.zeros(3, 5, dtype=getattr(torch, dt)) for _ in range(w)] if r == 0 else None
        dist.gather(torch.from_numpy(data(r, dt)), gl, dst=0)
        if r == 0:
            res[f"gather_{dt}"] = np.stack([g.numpy() for g in gl])
        t = torch.zeros(3, 5, dtype=getattr(torch, dt))
        dist.scatter(t, [torch.from_numpy(data(10 + k, dt)) for k in range(w)] if r == 1 else None, src=1)
        res[f"scatter_{dt}"] = t.numpy()
        # a ring of send/recv: rank r sends its data to r+1
        t = torch.zeros(3, 5, dtype=getattr(torch, dt))
        sw = dist.isend(torch.from_numpy(data(r, dt)), (r + 1) % w)
        dist.recv(t, (r - 1) % w)
        sw.wait()
        res[f"recv_{dt}"] = t.numpy()
    # in place through a view, and the lazy graph before it is synced first
    base = torch.zeros(4, 3)
    v = base[1]
    v += r + 1
    dist.all_reduce(v)
    res["view_base"] = base.numpy()
    # async: the result is bound by wait()
    t = torch.ones(1000) * (r + 1)
    work = dist.all_reduce(t, async_op=True)
    assert work.wait() is True and work.is_completed()
    res["async"] = t.numpy()
    # a subgroup of ranks 0 and 1 (every rank calls new_group)
    g = dist.new_group([0, 1])
    t = torch.tensor([r + 1], dtype=torch.int64)
    if r in (0, 1):
        dist.all_reduce(t, group=g)
        res["group_size"] = np.array([dist.get_world_size(g), dist.get_rank(g)])
    else:
        assert g is dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(g) == -1
    res["group"] = t.numpy()
    dist.barrier()
    objs = [None] * w
    dist.all_gather_object(objs, {"rank": r, "text": "x" * (r * 5)})
    res["objects"] = np.array(objs == [{"rank": q, "text": "x" * (q * 5)} for q in range(w)])
    lst = [("from", 1), [1, 2, 3]] if r == 1 else [None, None]
    dist.broadcast_object_list(lst, src=1)
    res["object_list"] = np.array(lst == [("from", 1), [1, 2, 3]])
    # ranks that disagree on the shape get an error, not a hang
    try:
        dist.all_reduce(torch.zeros(r + 1))
        res["mismatch"] = np.array("no error")
    except ValueError as e:
        res["mismatch"] = np.array(str(e))
    dist.destroy_process_group()
    assert not dist.is_initialized()
    np.savez(os.path.join(out, f"rank{r}.npz"), **res)


def batch(n=8):
    rs = np.random.RandomState(7)
    return rs.randn(n, 6).astype(np.float32), rs.randn(n, 3).astype(np.float32)


def seq_batch(n=4):
    rs = np.random.RandomState(8)
    return rs.randn(n, 5, 8).astype(np.float32), rs.randn(n, 5, 8).astype(np.float32)


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))


def transformer():
    return torch.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)


class Branchy(torch.nn.Module):
    """`extra` is used on rank 0 only, `unused` by no rank."""

    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(6, 3)
        self.extra = torch.nn.Linear(3, 3)
        self.unused = torch.nn.Linear(3, 3)

    def forward(self, x, use_extra):
        y = self.body(x)
        return self.extra(y) if use_extra else y


def ddp():
    dist.init_process_group("gloo")
    r, w = dist.get_rank(), dist.get_world_size()
    res = {}
    # MLP: 3 SGD steps; the last accumulates two micro-batches, the first under no_sync
    torch.manual_seed(1000 + r)  # only the broadcast from rank 0 makes the ranks (and the test's reference) agree
    model = torch.nn.parallel.DistributedDataParallel(mlp(), bucket_cap_mb=0.0002)  # two buckets
    assert len(model._buckets) > 1
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = batch()
    xs, ys = x[r * 4:(r + 1) * 4], y[r * 4:(r + 1) * 4]
    for step in range(2):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(torch.from_numpy(xs)), torch.from_numpy(ys)).backward()
        opt.step()
    opt.zero_grad()
    with model.no_sync():
        torch.nn.functional.mse_loss(model(torch.from_numpy(xs[:2])), torch.from_numpy(ys[:2])).backward()
    res["no_sync_grad_local"] = model.module[0].weight.grad.numpy()
    torch.nn.functional.mse_loss(model(torch.from_numpy(xs[2:])), torch.from_numpy(ys[2:])).backward()
    opt.step()
    for i, p in enumerate(model.module.parameters()):
        res[f"mlp_{i}"] = p.detach().numpy()
    # transformer layer: 2 SGD steps (Adam would turn the rounding noise of gradients that are zero in exact
    # arithmetic, such as the key bias's, into full-size steps)
    torch.manual_seed(2000 + r)
    model = torch.nn.parallel.DistributedDataParallel(transformer())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sx, sy = seq_batch()
    sxs, sys_ = sx[r * 2:(r + 1) * 2], sy[r * 2:(r + 1) * 2]
    for step in range(2):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(torch.from_numpy(sxs)), torch.from_numpy(sys_)).backward()
        opt.step()
    for i, p in enumerate(model.module.parameters()):
        res[f"tf_{i}"] = p.detach().numpy()
    # find_unused_parameters
    torch.manual_seed(3000 + r)
    model = torch.nn.parallel.DistributedDataParallel(Branchy(), find_unused_parameters=True)
    torch.nn.functional.mse_loss(model(torch.from_numpy(xs), r == 0), torch.from_numpy(ys)).backward()
    res["unused_is_none"] = np.array(model.module.unused.weight.grad is None)
    res["extra_grad"] = model.module.extra.weight.grad.numpy()
    res["body_grad"] = model.module.body.weight.grad.numpy()
    np.savez(os.path.join(out, f"rank{r}.npz"), **res)


def killed():
    import datetime
    import signal
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=float(os.environ["LT_TEST_TIMEOUT"])))
    r = dist.get_rank()
    t = torch.ones(10)
    dist.all_reduce(t)
    if r == dist.get_world_size() - 1:
        os.kill(os.getpid(), signal.SIGKILL)
    start = time.monotonic()
    try:
        for _ in range(100000):
            dist.all_reduce(t)
        msg = "no error"
    except RuntimeError as e:
        msg = str(e)
    with open(os.path.join(out, f"rank{r}.txt"), "w") as f:
        f.write(f"{time.monotonic() - start}\n{msg}")


def failing():
    if os.environ["RANK"] == "1":
        sys.exit(3)
    time.sleep(60)


{"collectives": collectives, "ddp": ddp, "killed": killed, "failing": failing}[scenario]()
'''


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def env():
    e = dict(os.environ, PYTHONPATH=PYTHONPATH)
    e.setdefault("LT_CACHE_DIR", "/tmp/ltc-dist")
    return e


def launch(tmp_path, scenario, nproc, timeout=120):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    cmd = [sys.executable, "-m", "lazytensor.distributed.run", "--nproc_per_node", str(nproc), "--master_port",
           str(free_port()), str(script), scenario, str(tmp_path)]
    start = time.monotonic()
    proc = subprocess.run(cmd, env=env(), capture_output=True, text=True, timeout=timeout)
    return proc, time.monotonic() - start


def results(tmp_path, nproc):
    return [dict(np.load(tmp_path / f"rank{r}.npz")) for r in range(nproc)]


def data(rank, dtype, shape=(3, 5)):
    rs = np.random.RandomState(100 + rank)
    if dtype.startswith("int"):
        return rs.randint(-1000, 1000, size=shape).astype(dtype)
    return rs.uniform(-2, 2, size=shape).astype(dtype)


def small(rank, dtype):
    rs = np.random.RandomState(200 + rank)
    if dtype.startswith("int"):
        return rs.randint(-3, 4, size=(7,)).astype(dtype)
    return rs.uniform(0.5, 1.5, size=(7,)).astype(dtype)


def same(got, want, dtype):
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if dtype.startswith("int"):
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == "float32" else 1e-12, atol=1e-6)


@pytest.mark.parametrize("nproc", [2, 4])
def test_collectives_match_one_process(tmp_path, nproc):
    proc, _ = launch(tmp_path, "collectives", nproc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = results(tmp_path, nproc)
    w = nproc
    for dt in DTYPES:
        xs = np.stack([data(r, dt) for r in range(w)])
        want = {"all_reduce_sum": xs.sum(0, dtype=dt), "all_reduce_max": xs.max(0), "all_reduce_min": xs.min(0),
                "all_reduce_product": np.stack([small(r, dt) for r in range(w)]).prod(0, dtype=dt),
                "broadcast": xs[w - 1], "all_gather": xs}
        if dt.startswith("float"):
            want["all_reduce_avg"] = (xs.sum(0, dtype=dt) / np.array(w, dt)).astype(dt)
        for r in range(w):
            for key, value in want.items():
                same(res[r][f"{key}_{dt}"], value, dt)
            same(res[r][f"reduce_scatter_{dt}"], np.stack([data(q * w + r, dt) for q in range(w)]).sum(0, dtype=dt),
                 dt)
            same(res[r][f"scatter_{dt}"], data(10 + r, dt), dt)
            same(res[r][f"recv_{dt}"], data((r - 1) % w, dt), dt)
        same(res[0][f"gather_{dt}"], xs, dt)
    total = sum(range(1, w + 1))
    for r in range(w):
        want_base = np.zeros((4, 3), np.float32)
        want_base[1] = total
        np.testing.assert_array_equal(res[r]["view_base"], want_base)
        np.testing.assert_array_equal(res[r]["async"], np.full(1000, total, np.float32))
        np.testing.assert_array_equal(res[r]["group"], [3] if r < 2 else [r + 1])
        assert bool(res[r]["objects"]) and bool(res[r]["object_list"])
        msg = str(res[r]["mismatch"])
        assert "all_reduce" in msg and "ranks disagree" in msg and "float32[" in msg, msg
    np.testing.assert_array_equal(res[0]["group_size"], [2, 0])
    np.testing.assert_array_equal(res[1]["group_size"], [2, 1])


def _batch(n=8):
    rs = np.random.RandomState(7)
    return rs.randn(n, 6).astype(np.float32), rs.randn(n, 3).astype(np.float32)


def _seq_batch(n=4):
    rs = np.random.RandomState(8)
    return rs.randn(n, 5, 8).astype(np.float32), rs.randn(n, 5, 8).astype(np.float32)


def _mse(model, x, y):
    return torch.nn.functional.mse_loss(model(torch.from_numpy(x)), torch.from_numpy(y))


@pytest.fixture(scope="module")
def ddp_results(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("ddp")
    proc, _ = launch(tmp_path, "ddp", 2)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return results(tmp_path, 2)


def test_ddp_two_ranks_train_as_one_process_on_the_full_batch(ddp_results):
    res = ddp_results

    # The MLP, in one process: rank 0's initial parameters (seed 1000), the full batch.
    torch.manual_seed(1000)
    model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = _batch()
    for step in range(2):
        opt.zero_grad()
        _mse(model, x, y).backward()
        opt.step()
    opt.zero_grad()
    # two micro-batches per rank, accumulated, averaged over the ranks
    loss = sum(_mse(model, x[r * 4 + h * 2:r * 4 + h * 2 + 2], y[r * 4 + h * 2:r * 4 + h * 2 + 2])
               for r in range(2) for h in range(2)) / 2
    loss.backward()
    opt.step()
    for i, p in enumerate(model.parameters()):
        for r in range(2):
            np.testing.assert_allclose(res[r][f"mlp_{i}"], p.detach().numpy(), rtol=1e-5, atol=1e-6)
    # under no_sync the gradients stayed local: the ranks' differ
    assert not np.allclose(res[0]["no_sync_grad_local"], res[1]["no_sync_grad_local"])

    torch.manual_seed(2000)
    model = torch.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sx, sy = _seq_batch()
    for step in range(2):
        opt.zero_grad()
        _mse(model, sx, sy).backward()
        opt.step()
    for i, p in enumerate(model.parameters()):
        for r in range(2):
            np.testing.assert_allclose(res[r][f"tf_{i}"], p.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_ddp_find_unused_parameters_counts_unused_gradients_as_zero(ddp_results):
    res = ddp_results
    torch.manual_seed(3000)
    body, extra = torch.nn.Linear(6, 3), torch.nn.Linear(3, 3)
    torch.nn.Linear(3, 3)
    x, y = _batch()
    y0 = extra(body(torch.from_numpy(x[:4])))
    y1 = body(torch.from_numpy(x[4:]))
    loss = (torch.nn.functional.mse_loss(y0, torch.from_numpy(y[:4])) +
            torch.nn.functional.mse_loss(y1, torch.from_numpy(y[4:]))) / 2
    loss.backward()
    for r in range(2):
        assert bool(res[r]["unused_is_none"])
        np.testing.assert_allclose(res[r]["extra_grad"], extra.weight.grad.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(res[r]["body_grad"], body.weight.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_a_killed_rank_makes_the_others_fail_within_the_timeout(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    port, world, timeout = free_port(), 3, 5.0
    procs = []
    for r in range(world):
        e = dict(env(), RANK=str(r), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                 LT_TEST_TIMEOUT=str(timeout))
        procs.append(subprocess.Popen([sys.executable, str(script), "killed", str(tmp_path)], env=e,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    try:
        for p in procs:
            p.wait(timeout=60)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert procs[world - 1].returncode == -signal.SIGKILL
    messages = []
    for r in range(world - 1):
        assert procs[r].returncode == 0, procs[r].stderr.read().decode()[-2000:]
        elapsed, msg = (tmp_path / f"rank{r}.txt").read_text().split("\n", 1)
        assert float(elapsed) < timeout + 3, (elapsed, msg)
        assert msg.startswith(f"lazytensor.distributed.all_reduce on rank {r} of {world} failed"), msg
        messages.append(msg)
    assert any(f"peer rank {world - 1}" in m for m in messages), messages


def test_launcher_terminates_the_others_when_a_rank_fails(tmp_path):
    proc, elapsed = launch(tmp_path, "failing", 2, timeout=60)
    assert proc.returncode == 3
    assert elapsed < 20
    assert "rank 1" in proc.stderr and "terminating the others" in proc.stderr


def test_collectives_without_init_raise_torchs_message():
    assert not dist.is_initialized()
    message = "Default process group has not been initialized, please make sure to call init_process_group."
    for call in (lambda: dist.all_reduce(torch.ones(2)), lambda: dist.get_rank(), lambda: dist.barrier(),
                 lambda: torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2))):
        with pytest.raises(RuntimeError, match=message.replace(".", r"\.")):
            call()
    with pytest.raises(RuntimeError, match="Default process group has not been initialized"):
        ref.distributed.all_reduce(ref.ones(2))


def test_single_process_group_over_file_and_tcp(tmp_path):
    dist.init_process_group("gloo", init_method=f"file://{tmp_path}/store", rank=0, world_size=1)
    try:
        t = torch.arange(5)
        dist.all_reduce(t)
        assert t.tolist() == [0, 1, 2, 3, 4] and dist.get_world_size() == 1 and dist.get_rank() == 0
        with pytest.raises(TypeError, match="dtype bool is not supported"):
            dist.all_reduce(torch.ones(2, dtype=torch.bool))
        with pytest.raises(RuntimeError, match="twice"):
            dist.init_process_group("gloo", init_method=f"file://{tmp_path}/store2", rank=0, world_size=1)
    finally:
        dist.destroy_process_group()
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{free_port()}", rank=0, world_size=1)
    try:
        t = torch.ones(3) * 2
        dist.all_reduce(t, op=dist.ReduceOp.AVG)
        assert t.tolist() == [2.0, 2.0, 2.0]
    finally:
        dist.destroy_process_group()


@pytest.mark.parametrize("n,replicas,shuffle,drop_last,seed,epoch", [
    (10, 3, True, False, 0, 0), (10, 3, True, True, 5, 2), (17, 4, False, False, 0, 0), (100, 2, True, False, 42, 7),
    (7, 4, True, True, 2**33 + 1, 1)])
def test_distributed_sampler_matches_torch(n, replicas, shuffle, drop_last, seed, epoch):
    from lazytensor.utils.data.distributed import DistributedSampler
    from torch.utils.data.distributed import DistributedSampler as RefSampler
    for rank in range(replicas):
        ours = DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=shuffle, seed=seed,
                                  drop_last=drop_last)
        theirs = RefSampler(range(n), num_replicas=replicas, rank=rank, shuffle=shuffle, seed=seed,
                            drop_last=drop_last)
        ours.set_epoch(epoch)
        theirs.set_epoch(epoch)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
    with pytest.raises(ValueError, match="Invalid rank"):
        DistributedSampler(range(n), num_replicas=replicas, rank=replicas)
