#!/usr/bin/env bash
# Installs the built tree into a scratch prefix, then configures, builds and
# runs test/consumer against it with find_package(lazytensor).
set -euo pipefail
src=$1
build=$2
# A sanitized build (LT_SANITIZE, e.g. address,undefined) installs sanitized
# libraries; a program using them must link the same runtime first.
sanitize=${3:-}
flags=()
if [ -n "$sanitize" ]; then
  flags=(-DCMAKE_CXX_FLAGS="-fsanitize=$sanitize" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$sanitize")
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$src/test/consumer" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" "${flags[@]}" > "$work/configure.log"
cmake --build "$work/consumer" > "$work/build.log"
LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" LT_CACHE_DIR="$work/cache" "$work/consumer/consumer"
