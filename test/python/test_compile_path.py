"""The compile path as a user meets it: how many kernels a longer program compiles (counts, never times).

Each test uses shapes no other test uses, so the kernels it counts are its own even with a shared kernel cache.
"""
import numpy as np

import lazytensor as torch
from lazytensor.utils.data import DataLoader, TensorDataset


def compiled():
    """Kernels new to this process: compiled, loaded from the disk cache (a shared LT_CACHE_DIR may hold them
    already), or started in the interpreter (docs/cpu-jit.md, "The interpreter tier")."""
    c = torch.debug.counters()
    return c["kernels_compiled"] + c["disk_loads"] + c["kernels_interpreted"]


def misses():
    return torch.debug.counters()["trace_cache_misses"]


def slice_recurrence(data, w, steps):
    x = data * 0.5  # pending, and not alive at the sync: its slices stay in the trace
    h = torch.zeros(x.shape[0], w.shape[0])
    for t in range(steps):
        h = torch.tanh(h @ w + x[:, t : t + 1])
    del x
    return h


def test_a_longer_recurrence_over_slices_compiles_no_new_kernels():
    g = np.random.default_rng(3)
    x = torch.from_numpy(g.standard_normal((3, 70)).astype(np.float32))
    w = torch.from_numpy((g.standard_normal((11, 11)) * 0.2).astype(np.float32))
    before = compiled()
    short = slice_recurrence(x, w, 12).sum().item()
    first = compiled() - before
    before = compiled()
    long = slice_recurrence(x, w, 60).sum().item()
    assert first >= 1
    assert compiled() - before == 0  # every step's kernel is the one compiled for the short run
    xs, ws = x.numpy().astype(np.float64) * 0.5, w.numpy().astype(np.float64)
    for steps, got in ((12, short), (60, long)):
        h = np.zeros((3, 11))
        for t in range(steps):
            h = np.tanh(h @ ws + xs[:, t : t + 1])
        assert abs(got - h.sum()) < 1e-3


def test_a_cat_of_thousands_of_lines_is_one_input_and_compiles_at_most_one_kernel():
    lines = [torch.tensor([(7 * i + j) % 13 for j in range(3 + i % 9)]) for i in range(4000)]
    before = compiled()
    total = torch.cat(lines).sum().item()
    assert compiled() - before <= 1  # the sum; the cat is joined at capture
    assert total == sum((7 * i + j) % 13 for i in range(4000) for j in range(3 + i % 9))


def test_a_cat_of_ten_times_the_pending_pieces_compiles_no_more_kernels():
    base = torch.arange(0, 17, dtype=torch.float32)

    def joined(n):
        before = compiled()
        total = torch.cat([base * (i % 5) for i in range(n)]).sum().item()
        assert total == 136 * sum(i % 5 for i in range(n))
        return compiled() - before

    few = joined(320)
    many = joined(3200)  # the output's size is in the kernels, the number of pieces is not
    assert 1 <= many <= few <= 4


def test_a_second_epoch_with_a_smaller_last_batch_compiles_nothing():
    g = np.random.default_rng(5)
    data = TensorDataset(torch.from_numpy(g.standard_normal((22, 9)).astype(np.float32)),
                         torch.from_numpy(g.integers(0, 3, 22)))
    loader = DataLoader(data, batch_size=8)  # batches of 8, 8 and 6
    model = torch.nn.Sequential(torch.nn.Linear(9, 13), torch.nn.ReLU(), torch.nn.Linear(13, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def epoch():
        losses = []
        for xb, yb in loader:
            loss = torch.nn.functional.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses

    epoch()
    epoch()  # the first step of an epoch may see the previous epoch's last update still pending
    kernels, traces = compiled(), misses()
    losses = epoch()
    assert len(losses) == 3
    assert compiled() == kernels
    assert misses() == traces


GENERATE = r'''
import math, sys
import lazytensor as torch
nn, F = torch.nn, torch.nn.functional
V, T, C, NH = 17, 96, 24, 2  # a context longer than the longest run: the sequence grows every step


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(C), nn.LayerNorm(C)
        self.qkv, self.proj = nn.Linear(C, 3 * C), nn.Linear(C, C)
        self.mlp = nn.Sequential(nn.Linear(C, 4 * C), nn.GELU(), nn.Linear(4 * C, C))
        self.register_buffer("mask", torch.tril(torch.ones(T, T)).view(1, 1, T, T))

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (z.view(b, t, NH, c // NH).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(c // NH))
        att = F.softmax(att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf")), dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).contiguous().view(b, t, c))
        return x + self.mlp(self.ln2(x))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(V, C), nn.Embedding(T, C)
        self.block, self.ln = Block(), nn.LayerNorm(C)
        self.head = nn.Linear(C, V, bias=False)

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(0, idx.size(1), dtype=torch.long))
        return self.head(self.ln(self.block(x)))


torch.manual_seed(0)
model = Model()
idx = torch.zeros((1, 1), dtype=torch.long)
idx.sum().item()
before = torch.debug.counters()["kernels_compiled"]
with torch.no_grad():
    for _ in range(int(sys.argv[1])):
        probs = F.softmax(model(idx)[:, -1, :], dim=-1)
        idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
        assert idx.sum().item() >= 0
c = torch.debug.counters()
print(c["kernels_compiled"] - before, c["kernels_generic"])
'''


def test_generating_20_and_80_tokens_compiles_the_same_kernels(tmp_path):
    # Each run in a fresh process with an empty kernel cache: what a user's first run compiles.
    import os
    import subprocess
    import sys

    def run(tokens):
        env = dict(os.environ, LT_CACHE_DIR=str(tmp_path / ("cache%d" % tokens)))
        out = subprocess.run([sys.executable, "-c", GENERATE, str(tokens)], env=env, capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        kernels, generic = (int(v) for v in out.stdout.split())
        return kernels, generic

    short, long = run(20), run(80)
    assert short[0] > 0
    assert long[0] == short[0]  # lengths 21..80 reuse the kernels compiled by then
    assert long[1] > short[1]  # ... as shape-generic kernels


def training_steps(make_opt, steps, set_to_none=True, scheduler=None):
    """Counter changes over each step of a small training loop (zero_grad, forward, backward, step, item)."""
    g = np.random.default_rng(11)
    x = torch.from_numpy(g.standard_normal((6, 19)).astype(np.float32))
    y = torch.from_numpy(g.integers(0, 5, 6))
    model = torch.nn.Sequential(torch.nn.Linear(19, 23), torch.nn.Tanh(), torch.nn.Linear(23, 5))
    opt = make_opt(model.parameters())
    sched = scheduler(opt) if scheduler else None
    torch.sync(*model.parameters(), x, y)
    counts = []
    for _ in range(steps):
        c0 = torch.debug.counters()
        opt.zero_grad(set_to_none=set_to_none)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        after_step = torch.debug.counters()["syncs"]
        loss.item()
        state = [t for s in opt.state.values() for t in s.values() if isinstance(t, torch.Tensor)]
        torch.sync(*model.parameters(), *state)
        c1 = torch.debug.counters()
        counts.append(dict(syncs=c1["syncs"] - c0["syncs"], stored=c1["syncs"] == after_step,
                           kernels=c1["kernels_compiled"] + c1["disk_loads"] - c0["kernels_compiled"] - c0["disk_loads"],
                           misses=c1["trace_cache_misses"] - c0["trace_cache_misses"],
                           hits=c1["trace_cache_hits"] - c0["trace_cache_hits"]))
        if sched:
            sched.step()
    return counts


def test_a_training_step_is_one_sync_and_the_third_compiles_nothing():
    counts = training_steps(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), 4, set_to_none=False)
    # step() ends in one sync that computes the step (forward, backward, update) and the loss; after it
    # the parameters and the state are stored: loss.item() and a sync of them compute nothing more.
    assert [c["syncs"] for c in counts] == [1, 1, 1, 1], counts
    assert all(c["stored"] for c in counts), counts
    # Step 1 has no momentum buffer and no gradient to zero; from step 2 on the trace is the same.
    assert counts[1]["misses"] == 1
    for c in counts[2:]:
        assert (c["kernels"], c["misses"], c["hits"]) == (0, 0, 1), counts


def test_adam_state_is_stored_from_the_start_so_the_second_step_is_a_cache_hit():
    counts = training_steps(lambda p: torch.optim.AdamW(p, lr=1e-2), 3,
                            scheduler=lambda o: torch.optim.lr_scheduler.StepLR(o, 1, gamma=0.5))
    assert counts[0]["misses"] == 1 and counts[0]["kernels"] >= 1, counts
    for c in counts[1:]:  # a new lr each step is a runtime scalar
        assert (c["syncs"], c["kernels"], c["misses"], c["hits"]) == (1, 0, 0, 1), counts


def test_a_closure_step_returns_the_loss_computed_in_the_steps_sync():
    g = np.random.default_rng(12)
    x = torch.from_numpy(g.standard_normal((5, 17)).astype(np.float32))
    model = torch.nn.Linear(17, 3)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)

    def closure():
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        return loss

    losses = []
    for _ in range(3):
        loss = opt.step(closure)
        before = torch.debug.counters()["syncs"]
        losses.append(loss.item())
        assert torch.debug.counters()["syncs"] == before
    assert losses[2] < losses[1] < losses[0]
