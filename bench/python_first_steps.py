"""The first training steps from a cold kernel cache, with and without the interpreter tier.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_first_steps.py [steps]

Runs the GPT training step of bench/python_compile_path.py (2 layers, 4
heads, width 128, context 64, AdamW, batch 8) `steps` times (12) in a fresh
process with an empty LT_CACHE_DIR, once with LT_INTERPRETER=0 (every
kernel compiled before its first launch) and once as shipped (kernels the
interpreter takes run there until hot: docs/cpu-jit.md, "The interpreter
tier"), and prints each step's seconds, the sum, the last loss (the same
bits in both) and the compile counters. A benchmark, not a test.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def child(steps):
    sys.path.insert(0, HERE)
    import numpy as np
    import lazytensor as torch
    import python_compile_path as programs

    setup, step = programs.gpt_train()
    state = setup(torch, np)
    times, loss = [], None
    for _ in range(steps):
        t0 = time.perf_counter()
        loss = step(torch, state)
        times.append(time.perf_counter() - t0)
    c = torch.debug.counters()
    print(json.dumps(dict(times=times, loss=repr(loss), compiled=c["kernels_compiled"],
                          interpreted=c.get("kernels_interpreted", 0), tiered_up=c.get("kernels_tiered_up", 0))))


def run(steps, interpreter):
    cache = tempfile.mkdtemp(prefix="lt-first-steps-")
    try:
        env = dict(os.environ, LT_CACHE_DIR=cache, LT_INTERPRETER="1" if interpreter else "0")
        out = subprocess.run([sys.executable, __file__, "--child", str(steps)], env=env, capture_output=True,
                             text=True, timeout=600)
        if out.returncode != 0:
            return None, out.stderr.strip().splitlines()[-1:]
        return json.loads(out.stdout.strip().splitlines()[-1]), None
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        return child(int(sys.argv[2]))
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    print("GPT training step from a cold kernel cache, seconds per step (%d steps)" % steps)
    print("| variant | step 1 | step 2 | step 3 | step 4 | rest (min-max) | sum | last loss | compiled | interpreted | tiered up |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, interp in (("LT_INTERPRETER=0", False), ("interpreter (default)", True)):
        r, err = run(steps, interp)
        if r is None:
            print("| %s | failed: %s |" % (name, err))
            continue
        t = r["times"]
        rest = t[4:] or [float("nan")]
        print("| %s | %.3f | %.3f | %.3f | %.3f | %.3f-%.3f | %.3f | %s | %d | %d | %d |" % (
            name, t[0], t[1], t[2], t[3], min(rest), max(rest), sum(t), r["loss"], r["compiled"], r["interpreted"],
            r["tiered_up"]))


if __name__ == "__main__":
    main()
