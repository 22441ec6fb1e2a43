"""torch.Size look-alike."""


class Size(tuple):
    """A tuple of dims that prints like torch.Size."""

    def numel(self):
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __repr__(self):
        return "torch.Size([" + ", ".join(str(d) for d in self) + "])"

    __str__ = __repr__

