"""linear: y = x W^T + b."""


def linear(input, weight, bias=None):
    if input.dim() > 2 and weight.dim() == 2:
        # One product over the flattened leading dims: the same forward values (the matmul folds a
        # batch-invariant weight into its rows anyway), and the weight's gradient is one matmul
        # instead of a batched one and a sum over the batch (10 kernels per transformer-block step).
        lead = tuple(input.shape[:-1])
        out = input.reshape(-1, input.shape[-1]).matmul(weight.t()).reshape(*lead, weight.shape[0])
    else:
        out = input.matmul(weight.t())
    return out + bias if bias is not None else out


__all__ = ["linear"]
