#!/usr/bin/env python3
"""layer_check: the layer rules that the staged include roots do not prove alone.

The compiler already rejects an include of a layer that a target does not
link (cmake/LtLayer.cmake), as long as nothing puts a folder above the layers
on the include path. This test checks that, and what the compiler cannot see:

1. Every `#include "..."` in a layer folder names a header of its own layer or
   of a layer below it (LAYERS: the arrows of docs/architecture.md), never
   `../`, and never a folder-private header ("Not a public API" in its opening
   comment) of another folder.
2. No CMakeLists.txt puts the repository root (or a folder above a layer) on
   an include path, and, given the build's compile_commands.json, no compile
   command does (`-I` of the source root, of a folder holding a layer, or of a
   layer folder itself, would let any file include any layer's headers).
3. Given the built extension module (_C*.so), it defines no `lt::fuzz`
   symbol: the differential fuzzer is a tool and is not shipped in _C.

Tests, bench, examples and tools may include anything they link; the
compiler checks those against what they link.

usage: layer_check.py SOURCE_DIR [--compile-commands FILE] [--module FILE]...
"""
import argparse
import glob
import json
import os
import re
import shlex
import subprocess
import sys

# Each layer folder and the layers it may include (its direct dependencies;
# what those may include is added below). Keep in step with the lt_layer()
# DEPS in each folder's CMakeLists.txt and with docs/architecture.md.
LAYERS = {
    "ir": [],
    "trace": ["ir"],
    "autograd": ["trace"],
    "scheduler": ["trace"],
    "jit/cpu": ["scheduler"],
    "jit/cuda": ["scheduler"],
    "cache": ["ir"],
    "runtime": ["cache", "jit/cpu", "jit/cuda", "scheduler"],
    "lab": ["runtime", "scheduler", "trace"],
    "lazy": ["autograd", "runtime", "trace"],
    "bindings": ["lazy", "lab"],
    "distributed": [],  # Gloo collectives over host buffers; its binding takes numpy arrays
}
# Folders at the top of the stack that are not layers: they include what they link.
FREE = ["test", "bench", "examples", "tools"]
SOURCE_EXT = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh", ".def", ".inc")
INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)


def closure():
    below = {}

    def visit(layer):
        if layer not in below:
            s = set()
            for d in LAYERS[layer]:
                s.add(d)
                s |= visit(d)
            below[layer] = s
        return below[layer]

    for layer in LAYERS:
        visit(layer)
    return below


def layer_of_path(rel):
    """The layer a repository-relative path belongs to (longest folder prefix), or None."""
    best = None
    for layer in LAYERS:
        if rel == layer or rel.startswith(layer + "/"):
            if best is None or len(layer) > len(best):
                best = layer
    return best


def top_level_dirs(src):
    return {d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)) and not d.startswith(".")}


def is_private(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            head = f.read(600)
    except OSError:
        return False
    return "Not a public API" in head


def check_includes(src, errors):
    below = closure()
    tops = top_level_dirs(src)
    for layer in LAYERS:
        folder = os.path.join(src, layer)
        if not os.path.isdir(folder):
            continue
        for root, dirs, files in os.walk(folder):
            rel_root = os.path.relpath(root, src)
            # A nested layer (jit/cpu inside jit) is walked as itself.
            dirs[:] = [d for d in dirs if layer_of_path(os.path.join(rel_root, d)) == layer]
            for name in files:
                if not name.endswith(SOURCE_EXT):
                    continue
                path = os.path.join(root, name)
                rel = os.path.relpath(path, src)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for m in INCLUDE_RE.finditer(text):
                    inc = m.group(1)
                    line = text.count("\n", 0, m.start()) + 1
                    where = f"{rel}:{line}: #include \"{inc}\""
                    if ".." in inc.split("/"):
                        errors.append(f"{where}: a relative path out of the folder ({layer}/ includes by layer path)")
                        continue
                    first = inc.split("/")[0]
                    if first in tops:
                        target = layer_of_path(inc)
                        if target is None:
                            errors.append(f"{where}: {first}/ is not a layer; layer {layer}/ may not include it")
                            continue
                        if target != layer and target not in below[layer]:
                            errors.append(f"{where}: {target}/ is not below {layer}/ "
                                          f"(it may include {', '.join(sorted(below[layer])) or 'no other layer'})")
                            continue
                        full = os.path.join(src, inc)
                    else:
                        full = os.path.join(root, inc)
                        if not os.path.exists(full):
                            continue  # a third-party header (absl/, llvm/, pybind11/)
                    target = layer_of_path(os.path.relpath(full, src))
                    if target is not None and os.path.dirname(os.path.relpath(full, src)) != os.path.dirname(rel) \
                            and is_private(full):
                        errors.append(f"{where}: a header private to {os.path.dirname(inc)}/ (\"Not a public API\")")


def check_cmake(src, errors):
    # The source root (or a folder above a layer) on an include path.
    bad = re.compile(r"(?:target_)?include_directories\s*\(([^)]*)\)", re.S | re.I)
    root_ref = re.compile(r"\$\{(?:PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR|lazytensor_SOURCE_DIR)\}/?(?=[\s\"]|$)"
                          r"|\$\{CMAKE_CURRENT_SOURCE_DIR\}/\.\.(?=[/\s\"]|$)")
    for root, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "build" and not d.startswith("build-")]
        for name in files:
            if name != "CMakeLists.txt" and not name.endswith(".cmake"):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for m in bad.finditer(text):
                if root_ref.search(m.group(1)):
                    line = text.count("\n", 0, m.start()) + 1
                    errors.append(f"{os.path.relpath(path, src)}:{line}: puts the repository root on an include path "
                                  f"(use lt_stage_include or link the layer): {' '.join(m.group(0).split())}")


def check_compile_commands(src, path, errors):
    src = os.path.realpath(src)
    layer_dirs = [os.path.realpath(os.path.join(src, l)) for l in LAYERS if os.path.isdir(os.path.join(src, l))]
    with open(path) as f:
        commands = json.load(f)
    seen = set()
    for c in commands:
        args = c.get("arguments") or shlex.split(c["command"])
        cwd = c.get("directory", ".")
        dirs = []
        i = 0
        while i < len(args):
            a = args[i]
            for flag in ("-I", "-isystem", "-iquote", "-idirafter"):
                if a == flag and i + 1 < len(args):
                    dirs.append(args[i + 1])
                    i += 1
                    break
                if a.startswith(flag) and len(a) > len(flag):
                    dirs.append(a[len(flag):])
                    break
            i += 1
        for d in dirs:
            p = os.path.realpath(os.path.join(cwd, d))
            # The root, a folder holding a layer, or a layer folder itself.
            if any(l == p or l.startswith(p + os.sep) for l in layer_dirs) and (p, c["file"]) not in seen:
                seen.add((p, c["file"]))
                errors.append(f"{os.path.relpath(c['file'], src)}: compiled with -I{d}, which exposes layer folders "
                              "below it to every include")


def check_module(path, errors):
    try:
        out = subprocess.run(["nm", "-C", "--defined-only", path], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        errors.append(f"{path}: nm failed: {e}")
        return
    fuzz = [l.split(" ", 2)[-1] for l in out.splitlines() if "lt::fuzz::" in l]
    if fuzz:
        errors.append(f"{path}: defines {len(fuzz)} lt::fuzz symbols (the fuzzer is linked in), e.g. {fuzz[0]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source_dir")
    ap.add_argument("--compile-commands")
    ap.add_argument("--module", action="append", default=[],
                    help="an extension module or glob that must not contain the fuzzer")
    a = ap.parse_args()
    errors = []
    check_includes(a.source_dir, errors)
    check_cmake(a.source_dir, errors)
    if a.compile_commands:
        check_compile_commands(a.source_dir, a.compile_commands, errors)
    for pattern in a.module:
        paths = glob.glob(pattern)
        if not paths:
            errors.append(f"{pattern}: no such module (build it first)")
        for p in paths:
            check_module(p, errors)
    for e in errors:
        print(e)
    if errors:
        print(f"layer_check: {len(errors)} violation(s)")
        return 1
    print("layer_check: layers hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
