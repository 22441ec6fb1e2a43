"""All-reduce bandwidth and DDP step time, 2 local processes: lazytensor.distributed against PyTorch's Gloo.

    PYTHONPATH=build/python /usr/bin/python3 bench/distributed_allreduce.py [iters]

Each side runs as 2 processes over loopback (TCP transport), in the same run:
lazytensor (lazytensor.distributed, the tensor materialised, reduced on its host
copy and bound back) and PyTorch (torch.distributed, backend gloo, reducing the
tensor's own memory). For float32 tensors of 1-64 MiB it reports the median
time of one all_reduce(SUM) and the algorithm bandwidth (bytes / time). Then one
DDP training step (forward, backward with the gradient all-reduce, SGD) of an
MLP 784-1024-1024-10 (1.85 M parameters, 7.4 MB of gradients) at batch 64 per
rank, for DistributedDataParallel on each side, and the same step without DDP
(the difference is the cost of the gradient all-reduce). Times are medians over ranks'
rank-0 measurements after warm-up.
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import time

ITERS = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 10
SIZES_MIB = [1, 4, 16, 64]
STEPS, WARMUP = 20, 5


def worker(lib):
    if lib == "lazytensor":
        import lazytensor as torch
        import lazytensor.distributed as dist
    else:
        import torch
        import torch.distributed as dist
        torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    out = {"allreduce": {}, "ddp": None}
    for mib in SIZES_MIB:
        t = torch.ones(mib * 1024 * 1024 // 4)
        dist.all_reduce(t)
        times = []
        for _ in range(ITERS):
            dist.barrier()
            start = time.perf_counter()
            dist.all_reduce(t)
            if lib == "lazytensor":
                t.sum().item()  # the value is bound lazily: include reading it once
            times.append(time.perf_counter() - start)
        out["allreduce"][mib] = statistics.median(times)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024),
                                torch.nn.ReLU(), torch.nn.Linear(1024, 10))
    x, y = torch.randn(64, 784), torch.randint(0, 10, (64,))

    def step_time(net):
        opt = torch.optim.SGD(net.parameters(), lr=0.01)
        times = []
        for step in range(WARMUP + STEPS):
            dist.barrier()
            start = time.perf_counter()
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            loss.item()
            if step >= WARMUP:
                times.append(time.perf_counter() - start)
        return statistics.median(times)
    out["local"] = step_time(model)  # the same step without DDP: what the gradient all-reduce adds is the rest
    out["ddp"] = step_time(torch.nn.parallel.DistributedDataParallel(model))
    dist.destroy_process_group()
    if rank == 0:
        print("RESULT " + json.dumps(out), flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(lib):
    port = free_port()
    procs = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                   OMP_NUM_THREADS="1")
        procs.append(subprocess.Popen([sys.executable, __file__, str(ITERS), "--worker", lib], env=env,
                                      stdout=subprocess.PIPE, text=True))
    outs = [p.communicate(timeout=900)[0] for p in procs]
    if any(p.returncode for p in procs):
        raise SystemExit(f"{lib} workers failed: {[p.returncode for p in procs]}")
    line = next(l for l in outs[0].splitlines() if l.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


def main():
    if "--worker" in sys.argv:
        worker(sys.argv[sys.argv.index("--worker") + 1])
        return
    results = {lib: run(lib) for lib in ("lazytensor", "torch")}
    print(f"all_reduce(SUM) float32, 2 processes over loopback, median of {ITERS}")
    print(f"{'MiB':>5} {'lazytensor ms':>14} {'GB/s':>6} {'torch gloo ms':>14} {'GB/s':>6} {'lt/torch time':>14}")
    for mib in SIZES_MIB:
        lt, th = results["lazytensor"]["allreduce"][str(mib)], results["torch"]["allreduce"][str(mib)]
        nbytes = mib * 1024 * 1024
        print(f"{mib:>5} {lt * 1e3:>14.2f} {nbytes / lt / 1e9:>6.2f} {th * 1e3:>14.2f} {nbytes / th / 1e9:>6.2f} "
              f"{lt / th:>14.2f}")
    print(f"training step, MLP 784-1024-1024-10, batch 64 per rank, 2 ranks, median of {STEPS}")
    print(f"{'':>22} {'lazytensor ms':>14} {'torch ms':>9} {'lt/torch':>9}")
    for key, label in (("local", "without DDP"), ("ddp", "DistributedDataParallel")):
        lt, th = results["lazytensor"][key], results["torch"][key]
        print(f"{label:>22} {lt * 1e3:>14.1f} {th * 1e3:>9.1f} {lt / th:>9.2f}")


if __name__ == "__main__":
    main()
