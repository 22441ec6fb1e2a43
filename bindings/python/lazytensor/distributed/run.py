"""python -m lazytensor.distributed.run: torchrun's static launcher for one node of a job.

    python3 -m lazytensor.distributed.run --nproc_per_node N [--nnodes M --node_rank K
        --master_addr A --master_port P] train.py args...

Starts N copies of the script with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE,
GROUP_RANK, MASTER_ADDR and MASTER_PORT set (global rank = node_rank * N + local
rank). When one exits non-zero (or is killed) the others are terminated and the
launcher exits with that status; Ctrl-C terminates all of them.
"""
import argparse
import os
import signal
import subprocess
import sys
import time


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m lazytensor.distributed.run", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nproc_per_node", "--nproc-per-node", type=int, default=1)
    p.add_argument("--nnodes", type=int, default=1)
    p.add_argument("--node_rank", "--node-rank", type=int, default=0)
    p.add_argument("--master_addr", "--master-addr", default="127.0.0.1")
    p.add_argument("--master_port", "--master-port", type=int, default=29500)
    p.add_argument("-m", "--module", action="store_true", help="run the script argument as a module (python -m)")
    p.add_argument("--no_python", "--no-python", action="store_true", help="run the script as an executable")
    p.add_argument("script")
    p.add_argument("script_args", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    if a.nproc_per_node < 1 or a.nnodes < 1 or not 0 <= a.node_rank < a.nnodes:
        p.error(f"need nproc_per_node >= 1, nnodes >= 1 and 0 <= node_rank < nnodes (got {a.nproc_per_node}, "
                f"{a.nnodes}, {a.node_rank})")
    return a


def _command(a):
    if a.no_python:
        return [a.script] + a.script_args
    if a.module:
        return [sys.executable, "-u", "-m", a.script] + a.script_args
    return [sys.executable, "-u", a.script] + a.script_args


def _terminate(procs, grace=5.0):
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    world = a.nnodes * a.nproc_per_node
    procs = []
    for local in range(a.nproc_per_node):
        env = dict(os.environ, RANK=str(a.node_rank * a.nproc_per_node + local), LOCAL_RANK=str(local),
                   WORLD_SIZE=str(world), LOCAL_WORLD_SIZE=str(a.nproc_per_node), GROUP_RANK=str(a.node_rank),
                   MASTER_ADDR=a.master_addr, MASTER_PORT=str(a.master_port))
        procs.append(subprocess.Popen(_command(a), env=env))
    status = 0
    try:
        while procs:
            for local, p in enumerate(procs):
                rc = p.poll()
                if rc is None:
                    continue
                if rc != 0:
                    rank = a.node_rank * a.nproc_per_node + local
                    print(f"lazytensor.distributed.run: rank {rank} (local rank {local}, pid {p.pid}) exited with "
                          f"{'signal ' + str(-rc) if rc < 0 else 'status ' + str(rc)}; terminating the others",
                          file=sys.stderr, flush=True)
                    _terminate(procs)
                    return 1 if rc < 0 else rc
            if all(p.poll() == 0 for p in procs):
                return 0
            time.sleep(0.05)
    except KeyboardInterrupt:
        _terminate(procs)
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
