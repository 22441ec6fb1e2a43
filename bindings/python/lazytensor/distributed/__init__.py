"""lazytensor.distributed — importable; no process-group backend yet (Gloo is planned), so is_available() is False
and every collective raises RuntimeError."""

__all__ = ["is_available", "is_initialized", "init_process_group", "get_rank", "get_world_size", "barrier",
           "all_reduce", "broadcast", "all_gather", "reduce", "destroy_process_group", "ReduceOp"]


class ReduceOp:
    SUM = "sum"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    AVG = "avg"


def is_available():
    return False


def is_initialized():
    return False


def _not_initialized(name):
    def call(*args, **kwargs):
        raise RuntimeError(f"torch.distributed.{name}: Default process group has not been initialized, and this "
                           "build has no distributed backend (lazytensor.distributed.is_available() is False)")
    call.__name__ = name
    return call


init_process_group = _not_initialized("init_process_group")
get_rank = _not_initialized("get_rank")
get_world_size = _not_initialized("get_world_size")
barrier = _not_initialized("barrier")
all_reduce = _not_initialized("all_reduce")
broadcast = _not_initialized("broadcast")
all_gather = _not_initialized("all_gather")
reduce = _not_initialized("reduce")
destroy_process_group = _not_initialized("destroy_process_group")
new_group = _not_initialized("new_group")
