"""nn.RNN, LSTM, GRU and RNNCell, LSTMCell, GRUCell (PyTorch 1.13 semantics).

The time loop is a Python loop of lazy ops, so a whole sequence (all layers, both directions)
is recorded into the caller's trace and autograd differentiates it like any other graph.
Per layer and direction, the input projection of every time step is one matmul over the whole
[T, B, I] input; the recurrent part (h @ W_hh^T and the gate math) is one step of the loop.
The steps' slices come from `unbind(0)` of that projection: their positions depend only on T,
so the same T records the same trace and a training step after the first few hits the cache.
PackedSequence inputs are not supported (NotImplementedError).
"""
import math
import numbers
import warnings

from ... import _C
from ..._C import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module
from ..._device import check_placement
from ...amp import autocast_mode

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def _reject_packed(name, input):
    if not isinstance(input, Tensor) and type(input).__name__ == "PackedSequence":
        raise NotImplementedError("{}: PackedSequence input is not supported by lazytensor; pad the batch (e.g. with "
                                  "nn.utils.rnn.pad_sequence) and pass a tensor instead".format(name))


def _check_dtype(name, input, weight, what="input"):
    # Under autocast the input projections cast input and weights to one dtype, as torch's do (torch has no
    # check of its own: outside autocast its matmul raises).
    if input.dtype != weight.dtype and not autocast_mode.state.cpu_enabled:
        raise RuntimeError("{}: {} must have the type {}, got type {}".format(name, what, weight.dtype, input.dtype))


def _rnn_step(mode, gi, h, c, w_hh, b_hh, w_hr):
    """One time step. gi: the input projection (x @ W_ih^T + b_ih) of this step."""
    gh = F.linear(h, w_hh, b_hh)
    if mode == "LSTM":
        i, f, g, o = (gi + gh).chunk(4, -1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        if w_hr is not None:
            h = F.linear(h, w_hr)
        return h, c
    if mode == "GRU":
        i_r, i_z, i_n = gi.chunk(3, -1)
        h_r, h_z, h_n = gh.chunk(3, -1)
        r = (i_r + h_r).sigmoid()
        z = (i_z + h_z).sigmoid()
        n = (i_n + r * h_n).tanh()
        return (1 - z) * n + z * h, None
    pre = gi + gh
    return (pre.tanh() if mode == "RNN_TANH" else pre.relu()), None


class RNNBase(Module):
    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        check_placement(device)
        super().__init__()
        dt = dtype or _C.float32
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed (got {!r})".format(dropout))
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          "expects num_layers greater than 1, but got dropout={} and num_layers={}".format(
                              dropout, num_layers))
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size (got proj_size={}, hidden_size={})".format(
                proj_size, hidden_size))
        gate_size = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}.get(mode)
        if gate_size is None:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size *= hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                suffix = "_reverse" if direction == 1 else ""
                params = [("weight_ih_l{}{}", (gate_size, layer_input)), ("weight_hh_l{}{}", (gate_size, real_hidden))]
                if bias:
                    params += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    params += [("weight_hr_l{}{}", (proj_size, hidden_size))]
                names = []
                for fmt, shape in params:
                    name = fmt.format(layer, suffix)
                    setattr(self, name, Parameter(_C.empty(*shape, dtype=dt)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        """A no-op (cuDNN weight packing in PyTorch)."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _name(self):
        return type(self).__name__

    def check_input(self, input, batch_sizes=None):
        if input.dim() != 3:
            raise RuntimeError("{}: input must have 3 dimensions, got {} (shape {})".format(
                self._name(), input.dim(), list(input.shape)))
        if self.input_size != input.shape[-1]:
            raise RuntimeError("{}: input.size(-1) must be equal to input_size. Expected {}, got {} (input shape "
                               "{})".format(self._name(), self.input_size, input.shape[-1], list(input.shape)))
        _check_dtype(self._name(), input, self.weight_ih_l0)

    def get_expected_hidden_size(self, input, batch_sizes=None):
        mini_batch = input.shape[0] if self.batch_first else input.shape[1]
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.proj_size if self.proj_size > 0 else
                self.hidden_size)

    def get_expected_cell_size(self, input, batch_sizes=None):
        mini_batch = input.shape[0] if self.batch_first else input.shape[1]
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch, self.hidden_size)

    def check_hidden_size(self, hx, expected, msg="Expected hidden size {}, got {}"):
        if tuple(hx.shape) != tuple(expected):
            raise RuntimeError("{}: ".format(self._name()) + msg.format(tuple(expected), list(hx.shape)))

    def _run(self, input, h0, c0):
        """input [T, B, I] (time first); h0/c0 [L*D, B, *]. Returns output [T, B, D*H], h_n, c_n."""
        mode, D = self.mode, 2 if self.bidirectional else 1
        T = input.shape[0]
        hs, cs = [], []
        x = input
        for layer in range(self.num_layers):
            outs = []
            for d in range(D):
                idx = layer * D + d
                names = self._all_weights[idx]
                w = {n.split("_l")[0]: getattr(self, n) for n in names}
                gi = F.linear(x, w["weight_ih"], w.get("bias_ih")).unbind(0)
                h = h0[idx]
                c = c0[idx] if c0 is not None else None
                steps = [None] * T
                for t in (range(T - 1, -1, -1) if d == 1 else range(T)):
                    h, c = _rnn_step(mode, gi[t], h, c, w["weight_hh"], w.get("bias_hh"), w.get("weight_hr"))
                    steps[t] = h
                outs.append(_C.stack(steps, 0))
                hs.append(h)
                cs.append(c)
            x = outs[0] if D == 1 else _C.cat(outs, -1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, _C.stack(hs, 0), (_C.stack(cs, 0) if c0 is not None else None)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _forward_single(self, input, hx):
        """RNN and GRU: one hidden state tensor."""
        _reject_packed(self._name(), input)
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError("{}: for unbatched 2-D input, hx should also be 2-D but got {}-D tensor (shape "
                                       "{})".format(self._name(), hx.dim(), list(hx.shape)))
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError("{}: for batched 3-D input, hx should also be 3-D but got {}-D tensor (shape {})".format(
                self._name(), hx.dim(), list(hx.shape)))
        if hx is None:
            mini_batch = input.shape[0] if self.batch_first else input.shape[1]
            hx = _C.zeros(self.num_layers * (2 if self.bidirectional else 1), mini_batch, self.hidden_size,
                          dtype=input.dtype)
        self.check_input(input)
        self.check_hidden_size(hx, self.get_expected_hidden_size(input))
        _check_dtype(self._name(), hx, self.weight_ih_l0, "hx")
        x = input.transpose(0, 1) if self.batch_first else input
        out, h_n, _ = self._run(x, hx, None)
        if self.batch_first:
            out = out.transpose(0, 1)
        if not is_batched:
            out, h_n = out.squeeze(batch_dim), h_n.squeeze(1)
        return out, h_n


class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError("Unknown nonlinearity '{}'".format(self.nonlinearity))
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_single(input, hx)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_single(input, hx)


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        _reject_packed("LSTM", input)
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        if hx is None:
            mini_batch = input.shape[0] if self.batch_first else input.shape[1]
            n = self.num_layers * (2 if self.bidirectional else 1)
            real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (_C.zeros(n, mini_batch, real_hidden, dtype=input.dtype),
                  _C.zeros(n, mini_batch, self.hidden_size, dtype=input.dtype))
        else:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError("LSTM: hx must be a tuple (h_0, c_0) of two tensors, got {}".format(
                    type(hx).__name__))
            if is_batched:
                if hx[0].dim() != 3 or hx[1].dim() != 3:
                    raise RuntimeError("LSTM: for batched 3-D input, hx and cx should also be 3-D but got ({}-D, "
                                       "{}-D) tensors".format(hx[0].dim(), hx[1].dim()))
            else:
                if hx[0].dim() != 2 or hx[1].dim() != 2:
                    raise RuntimeError("LSTM: for unbatched 2-D input, hx and cx should also be 2-D but got ({}-D, "
                                       "{}-D) tensors".format(hx[0].dim(), hx[1].dim()))
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_input(input)
        self.check_hidden_size(hx[0], self.get_expected_hidden_size(input), "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hx[1], self.get_expected_cell_size(input), "Expected hidden[1] size {}, got {}")
        _check_dtype("LSTM", hx[0], self.weight_ih_l0, "hx[0]")
        _check_dtype("LSTM", hx[1], self.weight_ih_l0, "hx[1]")
        x = input.transpose(0, 1) if self.batch_first else input
        out, h_n, c_n = self._run(x, hx[0], hx[1])
        if self.batch_first:
            out = out.transpose(0, 1)
        if not is_batched:
            out, h_n, c_n = out.squeeze(batch_dim), h_n.squeeze(1), c_n.squeeze(1)
        return out, (h_n, c_n)


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        check_placement(device)
        super().__init__()
        dt = dtype or _C.float32
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_C.empty(num_chunks * hidden_size, input_size, dtype=dt))
        self.weight_hh = Parameter(_C.empty(num_chunks * hidden_size, hidden_size, dtype=dt))
        if bias:
            self.bias_ih = Parameter(_C.empty(num_chunks * hidden_size, dtype=dt))
            self.bias_hh = Parameter(_C.empty(num_chunks * hidden_size, dtype=dt))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prepare(self, input, hx):
        """Unbatched -> batched, PyTorch's cell checks; hx: a tensor or a tuple of tensors (LSTMCell)."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise AssertionError("{}: Expected input to be 1-D or 2-D but received {}-D tensor (shape {})".format(
                name, input.dim(), list(input.shape)))
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is not None and not is_batched:
            hx = tuple(h.unsqueeze(0) for h in hx) if isinstance(hx, (tuple, list)) else hx.unsqueeze(0)
        if input.shape[1] != self.input_size:
            raise RuntimeError("{}: input has inconsistent input_size: got {} expected {} (input shape {})".format(
                name, input.shape[1], self.input_size, list(input.shape)))
        _check_dtype(name, input, self.weight_ih)
        for i, h in enumerate(hx if isinstance(hx, (tuple, list)) else ([hx] if hx is not None else [])):
            if h.dim() != 2 or h.shape[0] != input.shape[0]:
                raise RuntimeError("{}: Input batch size {} doesn't match hidden{} batch size {} (hidden shape "
                                   "{})".format(name, input.shape[0], i, h.shape[0] if h.dim() else None,
                                                list(h.shape)))
            if h.shape[1] != self.hidden_size:
                raise RuntimeError("{}: hidden{} has inconsistent hidden_size: got {}, expected {}".format(
                    name, i, h.shape[1], self.hidden_size))
            _check_dtype(name, h, self.weight_ih, "hidden{}".format(i))
        return input, hx, is_batched

    def _zeros(self, input):
        return _C.zeros(input.shape[0], self.hidden_size, dtype=input.dtype)


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        check_placement(device)
        super().__init__(input_size, hidden_size, bias, num_chunks=1, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, hx, is_batched = self._prepare(input, hx)
        if hx is None:
            hx = self._zeros(input)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError("RNNCell: Unknown nonlinearity: {}".format(self.nonlinearity))
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        h, _ = _rnn_step(mode, F.linear(input, self.weight_ih, self.bias_ih), hx, None, self.weight_hh,
                         self.bias_hh, None)
        return h if is_batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        check_placement(device)
        super().__init__(input_size, hidden_size, bias, num_chunks=4, dtype=dtype)

    def forward(self, input, hx=None):
        input, hx, is_batched = self._prepare(input, hx)
        if hx is None:
            hx = (self._zeros(input), self._zeros(input))
        h, c = _rnn_step("LSTM", F.linear(input, self.weight_ih, self.bias_ih), hx[0], hx[1], self.weight_hh,
                         self.bias_hh, None)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        check_placement(device)
        super().__init__(input_size, hidden_size, bias, num_chunks=3, dtype=dtype)

    def forward(self, input, hx=None):
        input, hx, is_batched = self._prepare(input, hx)
        if hx is None:
            hx = self._zeros(input)
        h, _ = _rnn_step("GRU", F.linear(input, self.weight_ih, self.bias_ih), hx, None, self.weight_hh,
                         self.bias_hh, None)
        return h if is_batched else h.squeeze(0)
