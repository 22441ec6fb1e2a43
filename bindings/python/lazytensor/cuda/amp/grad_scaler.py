"""torch.cuda.amp.GradScaler: dynamic loss scaling (scale, unscale_, step, update) as torch 1.13 runs it.

Without CUDA, torch 1.13 warns and disables a GradScaler, and a disabled one passes everything through
(scale(loss) is loss, step(opt) is opt.step(), state_dict() is {}); lazytensor.cuda.is_available() is
False, so GradScaler() does the same. The algorithm itself runs on host tensors when the scaler is
built with the private switch `_allow_host=True` (what the tests do):

- scale(outputs) multiplies by the scale, a float32 tensor of shape [1] made at the first call;
- unscale_(optimizer) multiplies each gradient by 1/scale (the reciprocal taken in float64, as torch)
  and records whether any gradient holds an inf or NaN; once per optimizer between updates;
- step(optimizer) unscales if unscale_ was not called, and skips optimizer.step() when an inf or NaN
  was found;
- update() multiplies the scale by backoff_factor after a step with inf/NaN and resets the count of
  good steps; otherwise it counts the step, and after growth_interval good steps in a row multiplies
  the scale by growth_factor (kept only when the result is finite) and resets the count.
"""
import enum
import warnings
from collections import defaultdict

from ... import _C
from ..._C import Tensor

__all__ = ["GradScaler", "OptState"]

_FLOAT32_OVERFLOW = 2.0 ** 128 * (1 - 2.0 ** -25)  # the smallest value that rounds to inf in float32


class OptState(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True, *, _allow_host=False):
        if enabled and not _allow_host:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
            enabled = False
        self._enabled = enabled
        self._init_scale = init_scale
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        if self._enabled:
            assert growth_factor > 1.0, "The growth factor must be > 1.0."
            assert backoff_factor < 1.0, "The backoff factor must be < 1.0."
            self._init_growth_tracker = 0
            self._scale = None  # float32 [1], made by the first scale()
            self._growth_tracker = None  # int32 [1]: good steps since the last change of the scale
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        assert self._scale is not None, "Attempted {} but _scale is None.  ".format(funcname) + fix
        assert self._growth_tracker is not None, "Attempted {} but _growth_tracker is None.  ".format(funcname) + fix
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self):
        assert self._growth_tracker is None, "_growth_tracker initialized before _scale"
        self._scale = _C.full([1], float(self._init_scale), dtype=_C.float32)
        self._growth_tracker = _C.full([1], int(self._init_growth_tracker), dtype=_C.int32)

    def scale(self, outputs):
        """outputs (a tensor, or nested lists/tuples/iterables of them) multiplied by the scale."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._lazy_init_scale_growth_tracker()

        def apply_scale(value):
            if isinstance(value, Tensor):
                return value * self._scale
            if isinstance(value, (list, tuple)):
                return type(value)(apply_scale(v) for v in value)
            if hasattr(value, "__iter__"):
                return map(apply_scale, value)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        grads = []
        for group in optimizer.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if not allow_fp16 and param.grad.dtype == _C.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                grads.append(param.grad)
        for grad in grads:  # as torch._amp_foreach_non_finite_check_and_unscale_: every gradient is scaled
            found_inf = _C.maximum(found_inf, (~grad.isfinite()).any().reshape(1).to(_C.float32))
            grad.mul_(inv_scale)  # in float32, rounded to the gradient's dtype once, as torch
        return {"cpu": found_inf}

    def unscale_(self, optimizer):
        """Divides optimizer's gradients by the scale in place, once between two update() calls."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = _C.full([1], 0.0, dtype=_C.float32)
        optimizer_state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        optimizer_state["stage"] = OptState.UNSCALED

    def _maybe_opt_step(self, optimizer, optimizer_state, *args, **kwargs):
        if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
            return optimizer.step(*args, **kwargs)
        return None

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step(*args, **kwargs) on unscaled gradients, skipped when one held an inf or NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if optimizer_state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        assert len(optimizer_state["found_inf_per_device"]) > 0, "No inf checks were recorded for this optimizer."
        retval = self._maybe_opt_step(optimizer, optimizer_state, *args, **kwargs)
        optimizer_state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Backs off or grows the scale from this iteration's inf checks (or sets it to new_scale)."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = "new_scale should be a float or a 1-element torch.cuda.FloatTensor with requires_grad=False."
                assert isinstance(new_scale, Tensor) and new_scale.dtype == _C.float32, reason
                assert new_scale.numel() == 1, reason
                assert new_scale.requires_grad is False, reason
                self._scale.copy_(new_scale.reshape(1))
        else:
            found_infs = [found_inf for state in self._per_optimizer_states.values()
                          for found_inf in state["found_inf_per_device"].values()]
            assert len(found_infs) > 0, "No inf checks were recorded prior to update."
            found_inf = sum(f.item() for f in found_infs)
            scale, good_steps = self._scale.item(), self._growth_tracker.item()
            if found_inf:
                scale, good_steps = scale * self._backoff_factor, 0
            elif good_steps + 1 == self._growth_interval:
                grown = scale * self._growth_factor
                scale, good_steps = (grown if abs(grown) < _FLOAT32_OVERFLOW else scale), 0
            else:
                good_steps += 1
            self._scale.fill_(scale)  # rounds to float32 once, as torch's kernel stores the product
            self._growth_tracker.fill_(good_steps)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker.item()

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
