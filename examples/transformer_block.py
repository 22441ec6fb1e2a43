"""A small transformer block language model; runs unchanged on PyTorch and lazytensor.

Embedding + learned positions, one pre-norm block (single-head causal
self-attention with masked_fill + softmax, GELU MLP, residuals), LayerNorm,
tied-free output head, Adam. Data: a synthetic next-token task from NumPy.

    PYTHONPATH=build/python python3 examples/transformer_block.py
    python3 examples/transformer_block.py --torch
"""
import json
import math
import sys
import time

import numpy as np

if "--torch" in sys.argv:
    import torch
else:
    import lazytensor as torch

nn = torch.nn
F = torch.nn.functional

STEPS = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 40
VOCAB, SEQ, DIM, BATCH = 16, 12, 32, 16
WARMUP = 3  # steps that build new traces before the steady state


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(DIM)
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.proj = nn.Linear(DIM, DIM)
        self.ln2 = nn.LayerNorm(DIM)
        self.mlp = nn.Sequential(nn.Linear(DIM, 4 * DIM), nn.GELU(), nn.Linear(4 * DIM, DIM))
        self.register_buffer("mask", torch.ones(SEQ, SEQ).tril() == 0)

    def forward(self, x):
        q, k, v = self.qkv(self.ln1(x)).split(DIM, dim=-1)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(DIM)
        att = att.masked_fill(self.mask, float("-inf"))
        x = x + self.proj(F.softmax(att, dim=-1) @ v)
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Parameter(torch.zeros(SEQ, DIM))
        self.block = Block()
        self.ln = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, idx):
        x = self.tok(idx) + self.pos
        return self.head(self.ln(self.block(x)))


def batch(rng):
    # Next token = (previous token + 3) % VOCAB, with a random start: learnable.
    start = rng.integers(0, VOCAB, (BATCH, 1))
    seq = (start + 3 * np.arange(SEQ + 1)[None, :]) % VOCAB
    return seq[:, :-1].astype(np.int64), seq[:, 1:].astype(np.int64)


def main():
    rng = np.random.default_rng(0)
    model = TinyLM()
    with torch.no_grad():
        for name, p in model.named_parameters():
            scale = 1.0 if name.endswith("ln1.weight") or name.endswith("ln2.weight") or name == "ln.weight" else 0.1
            init = rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.1
            p.copy_(torch.from_numpy(np.ones(tuple(p.shape), np.float32) if scale == 1.0 else init))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    lazy = hasattr(torch, "debug")
    losses, t0, c0 = [], None, None
    for step in range(STEPS):
        if step == WARMUP:
            t0 = time.perf_counter()
            c0 = torch.debug.counters() if lazy else None
        xb, yb = batch(rng)
        x, y = torch.from_numpy(xb), torch.from_numpy(yb)
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    elapsed = time.perf_counter() - t0
    c_end = torch.debug.counters() if lazy else None
    result = {"losses": losses, "steps_per_s": (STEPS - WARMUP) / elapsed}
    if lazy:
        c1 = c_end
        d = {k: c1.get(k, 0) - c0.get(k, 0) for k in c1}
        result["kernels_per_step"] = d.get("kernels_launched", 0) / (STEPS - WARMUP)
        result["trace_cache_hits"] = d.get("trace_cache_hits", 0)
        result["trace_cache_misses"] = d.get("trace_cache_misses", 0)
    for i in range(0, STEPS, max(1, STEPS // 8)):
        print("step %3d  loss %.5f" % (i, losses[i]))
    print("%.1f steps/s" % result["steps_per_s"])
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
