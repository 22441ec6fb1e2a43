"""lazytensor.debug — counters, backend and dump controls (see docs/python.md).

counters() returns every process-wide counter (nodes recorded, syncs, traces
captured, cache hits/misses, compiles, ...) as a dict, like PyTorch/XLA's
metrics report; reset_counters() zeroes them. Tests use them to assert "the
second training step compiles nothing".

recompile_reasons() says why the recent syncs missed the trace cache, one
string per miss, most recent last (the last 64): "new program (12 nodes)", or
"recompile: input 0 dim 1 was 64, now 65 (f32[8, 65])" naming what differs
from the nearest trace compiled before (LT_DEBUG=1 prints the same lines).
The counter trace_cache_recompiles counts the misses of the second kind.
"""
import os

from . import _C

counters = _C.counters
counter = _C.counter
reset_counters = _C.reset_counters
backend = _C.backend
set_backend = _C.set_backend
set_sync_threshold = _C.set_sync_threshold
sync_threshold = _C.sync_threshold
pending_tensor_count = _C.pending_tensor_count
allocator_stats = _C.allocator_stats
recompile_reasons = _C.recompile_reasons
clear_recompile_reasons = _C.clear_recompile_reasons


def set_dump_dir(path):
    """Write each compiled trace (and its plan and kernels) under `path`; None turns dumping off."""
    if path is None:
        os.environ.pop("LT_DUMP_DIR", None)
    else:
        os.makedirs(path, exist_ok=True)
        os.environ["LT_DUMP_DIR"] = str(path)
    if hasattr(_C, "_set_dump_dir"):
        _C._set_dump_dir("" if path is None else str(path))


def dump_dir():
    if hasattr(_C, "_dump_dir"):
        return _C._dump_dir() or None
    return os.environ.get("LT_DUMP_DIR")


def metrics_report():
    """Counters as text, one per line."""
    return "\n".join("%s: %d" % (k, v) for k, v in sorted(counters().items()))
