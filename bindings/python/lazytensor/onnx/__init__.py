"""lazytensor.onnx — importable so programs that import it at the top run; exporting is not implemented."""


def export(*args, **kwargs):
    raise NotImplementedError("lazytensor.onnx.export is not implemented: lazytensor has no ONNX exporter")
