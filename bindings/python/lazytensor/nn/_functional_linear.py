"""linear: y = x W^T + b; bilinear: y = x1^T A x2 + b."""


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


def bilinear(input1, input2, weight, bias=None):
    """y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]: one matmul of the flattened
    rows with weight as [I, O*J], then a product with input2 summed over j."""
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError("bilinear(): input batch dimensions do not match: got {} and {}".format(
            list(input1.shape[:-1]), list(input2.shape[:-1])))
    if weight.dim() != 3:
        raise RuntimeError("bilinear(): weight must be three-dimensional, but got {}-D".format(weight.dim()))
    o, i, j = weight.shape
    if input1.shape[-1] != i or input2.shape[-1] != j:
        raise RuntimeError("bilinear(): input sizes {} and {} do not match the weight's {} and {}".format(
            input1.shape[-1], input2.shape[-1], i, j))
    lead = list(input1.shape[:-1])
    x1 = input1.reshape(-1, i)
    x2 = input2.reshape(-1, 1, j)
    out = (x1.matmul(weight.permute(1, 0, 2).reshape(i, o * j)).reshape(-1, o, j) * x2).sum(-1)
    out = out.reshape(lead + [o])
    return out + bias if bias is not None else out


__all__ = ["linear", "bilinear"]
