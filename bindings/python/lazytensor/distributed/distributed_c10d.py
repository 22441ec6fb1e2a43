"""The process groups and collectives of torch.distributed (torch/distributed/distributed_c10d.py)."""
import datetime
import ipaddress
import os
import pickle
import socket
import threading
import time
import urllib.parse
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from .._C import Tensor, from_numpy
from ..autograd.grad_mode import no_grad

try:  # the Gloo extension, a leaf like _C
    from .._distributed import FileStore as _FileStore, ProcessGroup as _GlooGroup, TcpStore as _TcpStore
    _backend = True
except ImportError:  # built without Gloo (libgloo-dev)
    _backend = None

_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."
_DEFAULT_TIMEOUT = datetime.timedelta(minutes=30)  # torch's default_pg_timeout
_SUPPORTED = {"float32", "float64", "int32", "int64"}


def is_available():
    return _backend is not None


def is_gloo_available():
    return _backend is not None


def is_nccl_available():
    return False


def is_mpi_available():
    return False


def is_torchelastic_launched():
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


class ReduceOp:
    """torch.distributed.ReduceOp: SUM, AVG, PRODUCT, MIN, MAX (AVG on floating point tensors only)."""

    class _Op(int):
        def __repr__(self):
            return "ReduceOp." + self.name

    SUM = _Op(0)
    AVG = _Op(1)
    MAX = _Op(2)
    MIN = _Op(3)
    PRODUCT = _Op(4)


for _name in ("SUM", "AVG", "MAX", "MIN", "PRODUCT"):
    getattr(ReduceOp, _name).name = _name


class Backend(str):
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"
    UNDEFINED = "undefined"

    def __new__(cls, name):
        return str.__new__(cls, name.lower())


class ProcessGroup:
    """A Gloo process group of the `ranks` (global ranks) in order; this process is `rank` in it."""

    def __init__(self, impl, ranks, store, name):
        self._impl = impl
        self._ranks = list(ranks)
        self._store = store
        self._name = name
        # One worker keeps this group's collectives in the order they were called on this rank.
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lt-dist-" + name)
        self._p2p = ThreadPoolExecutor(max_workers=4, thread_name_prefix="lt-dist-p2p-" + name)

    def rank(self):
        return self._impl.rank

    def size(self):
        return self._impl.size

    def _group_rank(self, global_rank, what):
        try:
            return self._ranks.index(global_rank)
        except ValueError:
            raise ValueError(f"{what} rank {global_rank} is not part of the group (ranks {self._ranks})") from None

    def _shutdown(self):
        self._worker.shutdown(wait=False)
        self._p2p.shutdown(wait=False)

    def __repr__(self):
        return f"ProcessGroupGloo(rank={self.rank()}, size={self.size()}, ranks={self._ranks})"


class GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = object()


class Work:
    """A collective in flight (async_op=True). wait() blocks until it is done, raises its error, and binds the result
    into the output tensors; is_completed() says whether it is done without blocking."""

    def __init__(self, future, finish):
        self._future = future
        self._finish = finish
        self._done = False
        self._lock = threading.Lock()

    def is_completed(self):
        return self._future.done()

    def is_success(self):
        return self._future.done() and self._future.exception() is None

    def exception(self):
        return self._future.exception() if self._future.done() else None

    def wait(self, timeout=None):
        secs = timeout.total_seconds() if isinstance(timeout, datetime.timedelta) else timeout
        self._future.result(secs)
        with self._lock:
            if not self._done:
                self._done = True
                if self._finish is not None:
                    self._finish()
        return True

    def result(self):
        self.wait()
        return []


class _World:
    def __init__(self):
        self.default = None  # ProcessGroup
        self.store = None
        self.backend = None
        self.rank = -1
        self.world_size = -1
        self.timeout = _DEFAULT_TIMEOUT
        self.hostname = ""
        self.iface = ""
        self.group_count = 0
        self.generation = 0


_world = _World()


def is_initialized():
    return _world.default is not None


def _seconds(timeout):
    if timeout is None:
        return _DEFAULT_TIMEOUT.total_seconds()
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    return float(timeout)


def _env_int(name, given, what):
    if given is not None and given != -1:
        return int(given)
    value = os.environ.get(name)
    if value is None:
        raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: environment variable {name} "
                         f"expected, but not set ({what})")
    return int(value)


def _local_address_towards(host, port):
    """The address of this machine's interface that routes to host (the transport listens on it)."""
    try:
        if ipaddress.ip_address(socket.gethostbyname(host)).is_loopback:
            return "127.0.0.1"
    except (OSError, ValueError):
        pass
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((host, int(port) or 1))
            return s.getsockname()[0]
    except OSError:
        return socket.gethostname()


def _rendezvous(init_method, rank, world_size, timeout_s, store):
    """(store, rank, world_size, master host or None) from the init method."""
    if store is not None:
        if rank < 0 or world_size < 0:
            raise ValueError("init_process_group: rank and world_size are required with store=")
        return store, rank, world_size, None
    if init_method is None:
        init_method = "env://"
    url = urllib.parse.urlparse(init_method)
    if url.scheme == "env":
        addr = os.environ.get("MASTER_ADDR")
        port = os.environ.get("MASTER_PORT")
        if addr is None or port is None:
            missing = "MASTER_ADDR" if addr is None else "MASTER_PORT"
            raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: environment variable "
                             f"{missing} expected, but not set")
        rank = _env_int("RANK", rank, "the rank of this process")
        world_size = _env_int("WORLD_SIZE", world_size, "the number of processes")
        return _TcpStore(addr, int(port), rank == 0, timeout_s), rank, world_size, (addr, int(port))
    if url.scheme == "tcp":
        if rank < 0 or world_size < 0:
            raise ValueError("init_process_group: tcp:// needs rank and world_size arguments")
        if url.hostname is None or url.port is None:
            raise ValueError(f"init_process_group: tcp:// init_method needs host and port, got {init_method!r}")
        return _TcpStore(url.hostname, url.port, rank == 0, timeout_s), rank, world_size, (url.hostname,
                                                                                                  url.port)
    if url.scheme == "file":
        if rank < 0 or world_size < 0:
            raise ValueError("init_process_group: file:// needs rank and world_size arguments")
        path = urllib.parse.unquote(url.path)
        if not path:
            raise ValueError(f"init_process_group: file:// init_method needs a path, got {init_method!r}")
        # Gloo's file store keeps one file per key in a directory beside the path.
        return _FileStore(path + ".lt-store"), rank, world_size, None
    raise ValueError(f"init_process_group: unsupported init_method {init_method!r} (env://, tcp://host:port, "
                     f"file:///path)")


def init_process_group(backend="gloo", init_method=None, timeout=_DEFAULT_TIMEOUT, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None):
    if _backend is None:
        raise RuntimeError("init_process_group: this lazytensor was built without Gloo (install libgloo-dev and "
                           "rebuild); lazytensor.distributed.is_available() is False")
    if _world.default is not None:
        raise RuntimeError("trying to initialize the default process group twice!")
    backend = Backend(backend or "gloo")
    if backend != Backend.GLOO:
        raise RuntimeError(f"init_process_group: backend {backend!r} is not available in lazytensor (only 'gloo')")
    timeout_s = _seconds(timeout)
    store, rank, world_size, master = _rendezvous(init_method, rank, world_size, timeout_s, store)
    if not 0 <= rank < world_size:
        raise ValueError(f"init_process_group: rank {rank} is not in [0, world_size={world_size})")
    if hasattr(store, "register_rank"):
        store.register_rank(rank)
    iface = os.environ.get("GLOO_SOCKET_IFNAME", "")
    hostname = _local_address_towards(*master) if master else socket.gethostname()
    _world.generation += 1
    name = f"default_pg{_world.generation}"
    impl = _GlooGroup(store, name, rank, world_size, timeout_s, hostname, iface)
    _world.default = ProcessGroup(impl, range(world_size), store, name)
    _world.store, _world.backend, _world.rank, _world.world_size = store, backend, rank, world_size
    _world.timeout, _world.hostname, _world.iface, _world.group_count = timeout_s, hostname, iface, 0
    GroupMember.WORLD = _world.default


def destroy_process_group(group=None):
    if _world.default is None:
        raise RuntimeError("Invalid process group specified")
    if group is None or group is _world.default:
        _world.default._shutdown()
        _world.default = None
        GroupMember.WORLD = None
        _world.store = None
    elif isinstance(group, ProcessGroup):
        group._shutdown()


def _group(group):
    if _world.default is None:
        raise RuntimeError(_NOT_INITIALIZED)
    return _world.default if group is None else group


def _member(group):
    return group is not GroupMember.NON_GROUP_MEMBER


def get_rank(group=None):
    g = _group(group)
    return g.rank() if _member(g) else -1


def get_world_size(group=None):
    g = _group(group)
    return g.size() if _member(g) else -1


def get_backend(group=None):
    _group(group)
    return _world.backend


def new_group(ranks=None, timeout=None, backend=None, pg_options=None):
    """A group of the given global ranks. Every rank of the default group must call it, in the same order, as in
    torch; ranks outside `ranks` get GroupMember.NON_GROUP_MEMBER."""
    _group(None)
    _world.group_count += 1
    name = f"{_world.default._name}_group{_world.group_count}"
    ranks = sorted(range(_world.world_size) if ranks is None else [int(r) for r in ranks])
    if len(set(ranks)) != len(ranks) or any(not 0 <= r < _world.world_size for r in ranks):
        raise ValueError(f"new_group: ranks {ranks} must be distinct ranks of [0, {_world.world_size})")
    if _world.rank not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    t = _world.timeout if timeout is None else _seconds(timeout)
    impl = _GlooGroup(_world.store, name, ranks.index(_world.rank), len(ranks), t, _world.hostname,
                                 _world.iface)
    return ProcessGroup(impl, ranks, _world.store, name)


# ---- tensors <-> host buffers ----

def _host(tensor, op):
    """A writable C-contiguous host copy of the tensor's value (syncs it)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"lazytensor.distributed.{op}: expected a Tensor, got {type(tensor).__name__}")
    name = repr(tensor.dtype).replace("torch.", "")
    if name not in _SUPPORTED:
        raise TypeError(f"lazytensor.distributed.{op}: dtype {name} is not supported (float32, float64, int32, "
                        f"int64); shape {list(tensor.shape)}")
    return np.ascontiguousarray(tensor.detach().numpy())


def _bind(tensor, array):
    """Writes array into tensor in place (a new materialised leaf behind the same tensor, views see it)."""
    with no_grad():
        tensor.data = from_numpy(np.ascontiguousarray(array))


def _check_same(tensors, like, op, what):
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor) or tuple(t.shape) != tuple(like.shape) or t.dtype != like.dtype:
            got = f"{t.dtype}{list(t.shape)}" if isinstance(t, Tensor) else type(t).__name__
            raise ValueError(f"lazytensor.distributed.{op}: {what}[{i}] is {got}; every entry must be "
                             f"{like.dtype}{list(like.shape)} like the tensor")


def _exited_ranks(group):
    """Global ranks the store saw die (their connection dropped without a goodbye), or None if it cannot tell."""
    store = group._store
    if not hasattr(store, "exited_ranks"):
        return None
    deadline = time.monotonic() + 0.5  # the store may see the dead socket a moment after a peer did
    while True:
        try:
            ranks = [int(r) for r in store.exited_ranks().split()]
        except RuntimeError:
            return [0]  # the store, hosted by rank 0, is gone with it
        if ranks or time.monotonic() > deadline:
            return ranks
        time.sleep(0.02)


def _named_failures(group, job):
    """Runs job; a Gloo failure is re-raised naming the ranks that exited, when the store knows them."""
    def run():
        try:
            return job()
        except RuntimeError as e:
            if "failed" not in str(e) or "exited ranks" in str(e):
                raise
            dead = _exited_ranks(group)
            if not dead:
                raise
            raise RuntimeError(f"{e} [exited ranks: {', '.join(map(str, dead))}; peer rank {dead[0]} died]") from None
    return run


def _run(group, job, finish, async_op, p2p=False):
    future = (group._p2p if p2p else group._worker).submit(_named_failures(group, job))
    work = Work(future, finish)
    if async_op:
        return work
    work.wait()
    return None


def _skip(group, async_op):
    return None if not async_op else Work(_done_future(), None)


def _done_future():
    f = Future()
    f.set_result(None)
    return f


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    g = _group(group)
    if not _member(g):
        return _skip(g, async_op)
    if int(op) == ReduceOp.AVG and not tensor.is_floating_point():
        raise ValueError(f"lazytensor.distributed.all_reduce: ReduceOp.AVG needs a floating point tensor, got "
                         f"{tensor.dtype}{list(tensor.shape)}")
    a = _host(tensor, "all_reduce")
    return _run(g, lambda: g._impl.all_reduce(a, int(op)), lambda: _bind(tensor, a), async_op)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    """Runs as an all_reduce; only dst's tensor is written (as torch, the others' are left as they were)."""
    g = _group(group)
    if not _member(g):
        return _skip(g, async_op)
    root = g._group_rank(dst, "reduce: dst")
    a = _host(tensor, "reduce")
    finish = (lambda: _bind(tensor, a)) if g.rank() == root else None
    return _run(g, lambda: g._impl.all_reduce(a, int(op)), finish, async_op)


def broadcast(tensor, src, group=None, async_op=False):
    g = _group(group)
    if not _member(g):
        return _skip(g, async_op)
    root = g._group_rank(src, "broadcast: src")
    a = _host(tensor, "broadcast")
    finish = (lambda: _bind(tensor, a)) if g.rank() != root else None
    return _run(g, lambda: g._impl.broadcast(a, root), finish, async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    g = _group(group)
    if not _member(g):
        return _skip(g, async_op)
    if len(tensor_list) != g.size():
        raise ValueError(f"lazytensor.distributed.all_gather: tensor_list has {len(tensor_list)} tensors; the group "
                         f"has {g.size()} ranks")
    _check_same(tensor_list, tensor, "all_gather", "tensor_list")
    a = _host(tensor, "all_gather")
    out = np.empty((g.size(),) + a.shape, a.dtype)

    def finish():
        for t, block in zip(tensor_list, out):
            _bind(t, block)
    return _run(g, lambda: g._impl.all_gather(a, out), finish, async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Rank r gets the reduction of every rank's input_list[r]. Runs as one all_reduce of the stacked inputs (so it
    moves world_size times the data a ring reduce-scatter would); torch's own Gloo backend has no reduce_scatter."""
    g = _group(group)
    if not _member(g):
        return _skip(g, async_op)
    if len(input_list) != g.size():
        raise ValueError(f"lazytensor.distributed.reduce_scatter: input_list has {len(input_list)} tensors; the "
                         f"group has {g.size()} ranks")
    _check_same(input_list, output, "reduce_scatter", "input_list")
    if int(op) == ReduceOp.AVG and not output.is_floating_point():
        raise ValueError("lazytensor.distributed.reduce_scatter: ReduceOp.AVG needs a floating point tensor")
    a = np.stack([_host(t, "reduce_scatter") for t in input_list])
    me = g.rank()
    return _run(g, lambda: g._impl.all_reduce(a, int(op)), lambda: _bind(output, a[me]), async_op)


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    g = _group(group)
    if not _member(g):
        return _skip(g, async_op)
    root = g._group_rank(dst, "gather: dst")
    a = _host(tensor, "gather")
    if g.rank() == root:
        if gather_list is None or len(gather_list) != g.size():
            raise ValueError(f"lazytensor.distributed.gather: the dst rank needs a gather_list of {g.size()} tensors")
        _check_same(gather_list, tensor, "gather", "gather_list")
        out = np.empty((g.size(),) + a.shape, a.dtype)

        def finish():
            for t, block in zip(gather_list, out):
                _bind(t, block)
    else:
        if gather_list:
            raise ValueError("lazytensor.distributed.gather: gather_list is only given on the dst rank")
        out, finish = a, None
    return _run(g, lambda: g._impl.gather(a, out, root), finish, async_op)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    g = _group(group)
    if not _member(g):
        return _skip(g, async_op)
    root = g._group_rank(src, "scatter: src")
    out = _host(tensor, "scatter")
    if g.rank() == root:
        if scatter_list is None or len(scatter_list) != g.size():
            raise ValueError(f"lazytensor.distributed.scatter: the src rank needs a scatter_list of {g.size()} "
                             f"tensors")
        _check_same(scatter_list, tensor, "scatter", "scatter_list")
        inp = np.stack([_host(t, "scatter") for t in scatter_list])
    else:
        if scatter_list:
            raise ValueError("lazytensor.distributed.scatter: scatter_list is only given on the src rank")
        inp = out
    return _run(g, lambda: g._impl.scatter(inp, out, root), lambda: _bind(tensor, out), async_op)


def barrier(group=None, async_op=False, device_ids=None):
    g = _group(group)
    if not _member(g):
        return _skip(g, async_op)
    return _run(g, g._impl.barrier, None, async_op)


def _peer(g, rank, what):
    if rank is None:
        raise NotImplementedError(f"lazytensor.distributed.{what}: src=None (receive from any rank) is not supported")
    return g._group_rank(rank, what)


def isend(tensor, dst, group=None, tag=0):
    g = _group(group)
    if not _member(g):
        return _skip(g, True)
    peer = _peer(g, dst, "send: dst")
    a = _host(tensor, "send")
    return _run(g, lambda: g._impl.send(a, peer, int(tag)), None, True, p2p=True)


def irecv(tensor, src=None, group=None, tag=0):
    g = _group(group)
    if not _member(g):
        return _skip(g, True)
    peer = _peer(g, src, "recv: src")
    a = _host(tensor, "recv")
    return _run(g, lambda: g._impl.recv(a, peer, int(tag)), lambda: _bind(tensor, a), True, p2p=True)


def send(tensor, dst, group=None, tag=0):
    work = isend(tensor, dst, group, tag)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0):
    """Returns the sender's rank, as torch."""
    work = irecv(tensor, src, group, tag)
    if work is not None:
        work.wait()
    return src


# ---- picklable objects (sent as int64 words of their pickle) ----

def _to_words(obj):
    data = pickle.dumps(obj)
    words = np.zeros((len(data) + 7) // 8, np.int64)
    words.view(np.uint8)[:len(data)] = np.frombuffer(data, np.uint8)
    return words, len(data)


def _from_words(words, length):
    return pickle.loads(words.view(np.uint8)[:length].tobytes())


def all_gather_object(object_list, obj, group=None):
    """object_list[r] becomes rank r's obj (pickled, as torch)."""
    g = _group(group)
    if not _member(g):
        return
    if len(object_list) != g.size():
        raise ValueError(f"lazytensor.distributed.all_gather_object: object_list has {len(object_list)} entries; "
                         f"the group has {g.size()} ranks")
    words, length = _to_words(obj)
    lengths = np.zeros(g.size(), np.int64)
    mine = np.array([length], np.int64)
    g._worker.submit(g._impl.all_gather, mine, lengths).result()
    padded = np.zeros((int(lengths.max()) + 7) // 8, np.int64)
    padded[:len(words)] = words
    out = np.zeros((g.size(), len(padded)), np.int64)
    g._worker.submit(g._impl.all_gather, padded, out).result()
    for r in range(g.size()):
        object_list[r] = _from_words(out[r], int(lengths[r]))


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """Every rank's object_list becomes src's (pickled, as torch)."""
    g = _group(group)
    if not _member(g):
        return
    root = g._group_rank(src, "broadcast_object_list: src")
    words, length = _to_words(list(object_list)) if g.rank() == root else (None, 0)
    size = np.array([length], np.int64)
    g._worker.submit(g._impl.broadcast, size, root).result()
    buf = words if g.rank() == root else np.zeros((int(size[0]) + 7) // 8, np.int64)
    g._worker.submit(g._impl.broadcast, buf, root).result()
    received = _from_words(buf, int(size[0]))
    if len(received) != len(object_list):
        raise ValueError(f"lazytensor.distributed.broadcast_object_list: rank {get_rank()} has a list of "
                         f"{len(object_list)} entries; src {src} sent {len(received)}")
    object_list[:] = received
