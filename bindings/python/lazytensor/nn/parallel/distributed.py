"""torch.nn.parallel.DistributedDataParallel over lazytensor.distributed.

Construction broadcasts the parameters and buffers from rank 0. After each
backward pass that followed a forward through the wrapper (outside
`no_sync()`), the gradients are flattened into buckets of about
`bucket_cap_mb` (one dtype per bucket), each bucket is averaged across the
group by one all_reduce, and every `.grad` becomes a view of its bucket.

When the reduction runs: the core has no autograd hooks, so the wrapper
extends `Tensor.backward` (installed once, by the first DDP): after the
original backward returns, every DDP whose forward ran since reduces. All
gradients are computed in one sync and joined into buckets on the host; each
bucket's all_reduce is queued on the group's worker as soon as it is joined,
so transfers overlap the joining and binding of other buckets, but not the backward computation itself (torch overlaps them;
here the backward is one fused trace that has finished before any gradient
exists on the host).
"""
import contextlib
import weakref

import numpy as np

from ... import _C
from ..._C import Tensor, from_numpy
from ...autograd.grad_mode import no_grad
from ...distributed import distributed_c10d as _dist
from ..modules.module import Module

_pending = weakref.WeakSet()  # DDP modules whose forward ran since the last backward


def _reduce_after_backward():
    while _pending:
        ddp = _pending.pop()
        ddp._reduce_gradients()


def _install_backward_extension():
    if getattr(Tensor, "_lt_ddp_original_backward", None) is not None:
        return
    original = Tensor.backward

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        original(self, gradient, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)
        if _pending:
            _reduce_after_backward()

    backward.__doc__ = original.__doc__
    Tensor._lt_ddp_original_backward = original
    Tensor.backward = backward


def _dtype_name(t):
    return repr(t.dtype).replace("torch.", "")


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=25, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        group = _dist._group(process_group)  # raises torch's message without init_process_group
        if any(p.requires_grad for p in module.parameters()) is False:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter that "
                               "requires a gradient.")
        self.module = module
        self.process_group = group
        self.dim = dim
        self.device_ids = None
        self.output_device = None
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.bucket_bytes_cap = int(bucket_cap_mb * 1024 * 1024)
        seen = set()
        self._params = []
        self._param_names = []
        for name, p in module.named_parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                self._params.append(p)
                self._param_names.append(name)
        self._buckets = self._assign_buckets()
        _install_backward_extension()
        self._sync_module_states()

    def _assign_buckets(self):
        """Parameter indices per bucket, in reverse registration order (as torch: the last layers' gradients
        come first), one dtype per bucket, each closed when it passes the byte cap."""
        buckets, open_by_dtype = [], {}
        for i in reversed(range(len(self._params))):
            p = self._params[i]
            key = _dtype_name(p)
            if key not in _dist._SUPPORTED:
                raise TypeError(f"DistributedDataParallel: parameter {self._param_names[i]} has dtype {key}; "
                                "gradients of float32, float64, int32 or int64 are supported")
            b = open_by_dtype.get(key)
            if b is None:
                b = {"dtype": key, "indices": [], "bytes": 0}
                buckets.append(b)
                open_by_dtype[key] = b
            b["indices"].append(i)
            b["bytes"] += p.numel() * p.element_size()
            if b["bytes"] >= self.bucket_bytes_cap:
                del open_by_dtype[key]
        return [b["indices"] for b in buckets]

    def _broadcast_coalesced(self, tensors):
        """Broadcasts tensors from rank 0 of the group: one flat broadcast per dtype."""
        by_dtype = {}
        for t in tensors:
            by_dtype.setdefault(_dtype_name(t), []).append(t)
        root = self.process_group._ranks[0]
        for dtype, ts in by_dtype.items():
            if dtype not in _dist._SUPPORTED:
                continue
            flat = np.concatenate([_dist._host(t, "broadcast").reshape(-1) for t in ts])
            self.process_group._worker.submit(self.process_group._impl.broadcast, flat, 0).result()
            if self.process_group.rank() != 0:
                offset = 0
                for t in ts:
                    n = t.numel()
                    _dist._bind(t, flat[offset:offset + n].reshape(tuple(t.shape)))
                    offset += n

    def _sync_module_states(self):
        states = list(self.module.parameters()) + [b for b in self.module.buffers() if b is not None]
        if states and self.process_group.size() > 1:
            self._broadcast_coalesced(states)

    def forward(self, *inputs, **kwargs):
        if self.broadcast_buffers and self.process_group.size() > 1:
            buffers = [b for b in self.module.buffers() if b is not None]
            if buffers:
                self._broadcast_coalesced(buffers)
        if _C.is_grad_enabled() and self.require_backward_grad_sync:
            _pending.add(self)
        return self.module(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients accumulate locally inside; the first backward after it reduces the accumulated sum."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def _reduce_gradients(self):
        group = self.process_group
        if group.size() == 1:
            return
        missing = [i for i, p in enumerate(self._params) if p.grad is None]
        if missing and not self.find_unused_parameters:
            names = ", ".join(self._param_names[i] for i in missing)
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. This error "
                "indicates that your module has parameters that were not used in producing loss. You can enable "
                "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
                f"`torch.nn.parallel.DistributedDataParallel`. Parameters which did not receive grad for rank "
                f"{group.rank()}: {names}")
        used = None
        if self.find_unused_parameters:
            used = np.array([0 if p.grad is None else 1 for p in self._params], np.int32)
            group._worker.submit(group._impl.all_reduce, used, int(_dist.ReduceOp.SUM)).result()
        with no_grad():
            # One sync for every gradient, then the buckets are joined on the host: a lazy cat of the gradients
            # in the backward's trace made that trace about twice as slow as the backward alone.
            _C.sync(*[p.grad for p in self._params if p.grad is not None])
            hosts, futures = [], []
            for bucket in self._buckets:  # each bucket's all_reduce starts while the next one is joined
                parts = []
                for i in bucket:
                    p = self._params[i]
                    if p.grad is not None:
                        parts.append(p.grad.numpy().reshape(-1))
                    else:
                        parts.append(np.zeros(p.numel(), np.dtype(_dtype_name(p))))
                hosts.append(np.concatenate(parts) if len(parts) > 1 else np.ascontiguousarray(parts[0]))
                futures.append(group._worker.submit(group._impl.all_reduce, hosts[-1], int(_dist.ReduceOp.AVG)))
            for bucket, host, future in zip(self._buckets, hosts, futures):
                future.result()
                flat = from_numpy(host)
                offset = 0
                for i in bucket:
                    p = self._params[i]
                    n = p.numel()
                    if used is not None and used[i] == 0:
                        p.grad = None  # unused on every rank: left as torch leaves it
                    else:
                        p.grad = flat[offset:offset + n].view(tuple(p.shape))
                    offset += n
