"""Cold first steps of real programs: lazytensor beside PyTorch eager (issue 21, acceptance 2).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_compile_path.py [--timeout S] [--only ROW,ROW]

Each row is one PyTorch program, written once and run unchanged under
`import lazytensor as torch` and `import torch` (the module is an argument of
the row's function). Every (row, library) pair runs in its own fresh process;
lazytensor's gets a fresh empty LT_CACHE_DIR, so its kernel cache is cold.
The child builds the row's inputs and model (setup: not timed; lazytensor's
pending parameters are realised in one sync there), then times the first call
end to end (capture, scheduling, compiling, running, the final `.item()`) and
a second, steady-state call of the same program. Printed per row: the
lazytensor first and second call, torch eager's, the ratio of the first calls
(lazytensor / torch) and the kernels lazytensor compiled in each call
(debug.counters() 'kernels_compiled' plus 'kernels_tiered_up': a kernel that
started in the interpreter tier is compiled in a later call). A row that raises prints the
exception and the table goes on; one that runs past --timeout (120 s) prints
"timeout". Torch runs as-is (all threads), with Debian's OpenBLAS on the
library path as bench/python_mlp_step.py does.

A benchmark, not a test: it asserts nothing.
"""
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

B_LSTM, H_LSTM = 8, 64  # the LSTM-cell loop's batch and hidden size
SLICE_B, SLICE_H, SLICE_L = 8, 64, 400
CAT_PIECES = 4000
GPT = dict(vocab=65, context=64, width=128, heads=4, layers=2)
GEN_TOKENS, TRAIN_BATCH = 100, 8


def settle(torch, tensors):
    """Realises pending setup values (lazytensor) in one sync; a no-op for eager torch."""
    tensors = [t.detach() for t in tensors]
    if tensors:
        sum(t.float().sum() for t in tensors).item()


# ---- the programs ---------------------------------------------------------------

def lstm_loop(n):
    def setup(torch, np):
        rng = np.random.default_rng(0)
        f = lambda *s, k=1.0: torch.from_numpy((rng.standard_normal(s) * k).astype(np.float32))
        return dict(x=f(B_LSTM, 4 * H_LSTM), wh=f(4 * H_LSTM, H_LSTM, k=0.1), h=f(B_LSTM, H_LSTM), c=f(B_LSTM, H_LSTM))

    def step(torch, s):
        h, c, x, wh = s["h"], s["c"], s["x"], s["wh"]
        for _ in range(n):
            i, f, g, o = (x + h @ wh.t()).chunk(4, -1)
            c = f.sigmoid() * c + i.sigmoid() * g.tanh()
            h = o.sigmoid() * c.tanh()
        return h.sum().item()

    return setup, step


def nn_lstm():
    def setup(torch, np):
        torch.manual_seed(0)
        model = torch.nn.LSTM(200, 200, 2)
        x = torch.from_numpy(np.random.default_rng(0).standard_normal((35, 20, 200)).astype(np.float32))
        settle(torch, list(model.parameters()))
        return dict(model=model, x=x)

    def step(torch, s):
        model = s["model"]
        model.zero_grad()
        out, (h, c) = model(s["x"])
        loss = out.pow(2).mean()
        loss.backward()
        return loss.item()

    return setup, step


def slice_recurrence():
    def setup(torch, np):
        rng = np.random.default_rng(0)
        f = lambda *s, k=1.0: torch.from_numpy((rng.standard_normal(s) * k).astype(np.float32))
        return dict(inp=f(SLICE_B, SLICE_L), w=f(SLICE_H, SLICE_H, k=0.1), h=f(SLICE_B, SLICE_H))

    def step(torch, s):
        x = s["inp"] * 0.5  # pending, so its slices stay in the trace
        h, w = s["h"], s["w"]
        for t in range(SLICE_L):
            h = torch.tanh(h @ w + x[:, t:t + 1])
        return h.sum().item()

    return setup, step


def cat_corpus():
    def setup(torch, np):
        rnd = random.Random(0)
        return dict(lines=[[rnd.randrange(65) for _ in range(rnd.randint(3, 12))] for _ in range(CAT_PIECES)])

    def step(torch, s):
        data = torch.cat([torch.tensor(line, dtype=torch.long) for line in s["lines"]])
        return data.sum().item()

    return setup, step


def cat_pending():
    def setup(torch, np):
        return dict(base=torch.from_numpy(np.random.default_rng(0).standard_normal(5).astype(np.float32)))

    def step(torch, s):
        base = s["base"]
        data = torch.cat([base * (i * 0.25) for i in range(CAT_PIECES)])
        return data.sum().item()

    return setup, step


def gpt_model(torch):
    """A minimal nanoGPT: token + position embeddings, pre-norm blocks of causal self-attention and a GELU MLP."""
    nn, F = torch.nn, torch.nn.functional
    V, T, C, NH, NL = GPT["vocab"], GPT["context"], GPT["width"], GPT["heads"], GPT["layers"]

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(C, 3 * C)
            self.c_proj = nn.Linear(C, C)
            self.register_buffer("mask", torch.tril(torch.ones(T, T)).view(1, 1, T, T))

        def forward(self, x):
            b, t, c = x.size()
            q, k, v = self.c_attn(x).split(C, dim=2)
            q = q.view(b, t, NH, c // NH).transpose(1, 2)
            k = k.view(b, t, NH, c // NH).transpose(1, 2)
            v = v.view(b, t, NH, c // NH).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(c // NH))
            att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
            return self.c_proj(y)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn, self.ln_2 = nn.LayerNorm(C), Attention(), nn.LayerNorm(C)
            self.mlp = nn.Sequential(nn.Linear(C, 4 * C), nn.GELU(), nn.Linear(4 * C, C))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(V, C), nn.Embedding(T, C)
            self.blocks = nn.ModuleList([Block() for _ in range(NL)])
            self.ln_f = nn.LayerNorm(C)
            self.lm_head = nn.Linear(C, V, bias=False)

        def forward(self, idx, targets=None):
            t = idx.size(1)
            x = self.wte(idx) + self.wpe(torch.arange(0, t, dtype=torch.long))
            for block in self.blocks:
                x = block(x)
            logits = self.lm_head(self.ln_f(x))
            loss = None if targets is None else F.cross_entropy(logits.view(-1, V), targets.view(-1))
            return logits, loss

    torch.manual_seed(0)
    model = Model()
    settle(torch, list(model.parameters()) + list(model.buffers()))
    return model


def gpt_generate():
    def setup(torch, np):
        return dict(model=gpt_model(torch))

    def step(torch, s):
        model, F = s["model"], torch.nn.functional
        idx = torch.zeros((1, 1), dtype=torch.long)
        with torch.no_grad():
            for _ in range(GEN_TOKENS):
                logits, _ = model(idx[:, -GPT["context"]:])
                probs = F.softmax(logits[:, -1, :], dim=-1)
                idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
        return idx.sum().item()

    return setup, step


def gpt_train():
    def setup(torch, np):
        model = gpt_model(torch)
        rng = np.random.default_rng(0)
        data = rng.integers(0, GPT["vocab"], (TRAIN_BATCH, GPT["context"] + 1))
        return dict(model=model, opt=torch.optim.AdamW(model.parameters(), lr=1e-3),
                    x=torch.from_numpy(data[:, :-1].copy()), y=torch.from_numpy(data[:, 1:].copy()))

    def step(torch, s):
        model, opt = s["model"], s["opt"]
        _, loss = model(s["x"], s["y"])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.item()

    return setup, step


ROWS = [
    ("lstm_loop_200", "LSTM-cell loop, n=200, B=%d H=%d, then h.sum().item()" % (B_LSTM, H_LSTM), lambda: lstm_loop(200)),
    ("lstm_loop_400", "LSTM-cell loop, n=400", lambda: lstm_loop(400)),
    ("nn_lstm", "nn.LSTM(200, 200, 2) fwd+bwd, 35 steps, batch 20", nn_lstm),
    ("slice_rec", "h = tanh(h @ W + x[:, t:t+1]), L=%d, B=%d H=%d" % (SLICE_L, SLICE_B, SLICE_H), slice_recurrence),
    ("cat_corpus", "cat of %d torch.tensor(line), 3-12 tokens" % CAT_PIECES, cat_corpus),
    ("cat_pending", "cat of %d pending pieces [5]" % CAT_PIECES, cat_pending),
    ("gpt_generate", "GPT 2x4x128 ctx 64: generate %d tokens" % GEN_TOKENS, gpt_generate),
    ("gpt_train", "GPT 2x4x128 ctx 64: first AdamW step, batch %d" % TRAIN_BATCH, gpt_train),
]


# ---- one (row, library) in a child process ----------------------------------------

def child(lib, row):
    import numpy as np

    if lib == "lazytensor":
        import lazytensor as torch
        kernels = lambda: sum(torch.debug.counters().get(c, 0) for c in ("kernels_compiled", "kernels_tiered_up"))
    else:
        import torch
        kernels = lambda: 0
    setup, step = dict((r[0], r[2]) for r in ROWS)[row]()
    result = {}
    try:
        state = setup(torch, np)
        for call in ("first", "second"):
            k0, t0 = kernels(), time.perf_counter()
            step(torch, state)
            result[call + "_s"] = time.perf_counter() - t0
            result[call + "_kernels"] = kernels() - k0
    except Exception as e:  # a missing API or a failing op: reported in the row
        result["error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    print(json.dumps(result))


def run_child(lib, row, timeout):
    env = dict(os.environ)
    cache = None
    if lib == "lazytensor":
        cache = tempfile.mkdtemp(prefix="lt-cold-cache-")
        env["LT_CACHE_DIR"] = cache
    else:
        env.pop("PYTHONPATH", None)
        openblas = "/usr/lib/x86_64-linux-gnu/openblas-pthread"
        if os.path.isdir(openblas):
            env["LD_LIBRARY_PATH"] = openblas + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    try:
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", lib, row], env=env,
                             capture_output=True, text=True, timeout=timeout)
        lines = out.stdout.strip().splitlines()
        if out.returncode != 0 or not lines:
            tail = (out.stderr.strip().splitlines() or ["exit %d" % out.returncode])[-1]
            return {"error": "crashed: " + tail}
        return json.loads(lines[-1])
    except subprocess.TimeoutExpired:
        return {"error": "timeout (> %g s)" % timeout}
    finally:
        if cache:
            shutil.rmtree(cache, ignore_errors=True)


def main():
    args = sys.argv[1:]
    if args[:1] == ["--child"]:
        return child(args[1], args[2])
    timeout = float(args[args.index("--timeout") + 1]) if "--timeout" in args else 120.0
    only = set(args[args.index("--only") + 1].split(",")) if "--only" in args else None
    print("cold first call (fresh process, empty LT_CACHE_DIR) and second call, seconds; torch eager in its own process")
    print("| program | lazytensor 1st s | lazytensor 2nd s | torch 1st s | torch 2nd s | lt/torch (1st) | "
          "kernels compiled (1st / 2nd) |")
    print("|---|---|---|---|---|---|---|")
    fmt = lambda r, k: "%.3f" % r[k] if k in r else "-"
    for name, title, _ in ROWS:
        if only and name not in only:
            continue
        lt = run_child("lazytensor", name, timeout)
        pt = run_child("torch", name, timeout)
        ratio = "%.1f" % (lt["first_s"] / pt["first_s"]) if "first_s" in lt and pt.get("first_s") else "-"
        kernels = "%s / %s" % (lt.get("first_kernels", "-"), lt.get("second_kernels", "-"))
        cells = [title, fmt(lt, "first_s"), fmt(lt, "second_s"), fmt(pt, "first_s"), fmt(pt, "second_s"), ratio, kernels]
        if "error" in lt:
            cells[1] = "lazytensor failed: " + lt["error"].replace("|", "/")
        if "error" in pt:
            cells[3] = "torch failed: " + pt["error"].replace("|", "/")
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
