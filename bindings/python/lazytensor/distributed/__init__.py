"""torch.distributed for lazytensor, on Gloo (docs/distributed.md).

A collective is a sync point for its inputs: the tensor is materialised, its
host copy goes through Gloo (lazytensor._distributed, distributed/ in C++),
and the result is bound back into the same tensor as a new leaf, so
`all_reduce(t)` changes `t` in place as torch's does. With `async_op=True` the
collective runs on the group's worker thread (in the order calls were made,
the order every rank must use) and `Work.wait()` binds the result.

is_available() is False in a build without Gloo (libgloo-dev); everything
here then raises as torch does without a process group.
"""
from .distributed_c10d import (  # noqa: F401
    Backend, GroupMember, ProcessGroup, ReduceOp, Work, all_gather, all_gather_object, all_reduce, barrier,
    broadcast, broadcast_object_list, destroy_process_group, gather, get_backend, get_rank, get_world_size,
    init_process_group, irecv, is_available, is_gloo_available, is_initialized, is_mpi_available, is_nccl_available,
    is_torchelastic_launched, isend, new_group, recv, reduce, reduce_scatter, scatter, send)

__all__ = [
    "Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_gather_object", "all_reduce",
    "barrier", "broadcast", "broadcast_object_list", "destroy_process_group", "gather", "get_backend", "get_rank",
    "get_world_size", "init_process_group", "irecv", "is_available", "is_gloo_available", "is_initialized",
    "is_mpi_available", "is_nccl_available", "is_torchelastic_launched", "isend", "new_group", "recv", "reduce",
    "reduce_scatter", "scatter", "send"]
