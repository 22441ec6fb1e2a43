# lazytensor — the two commands a newcomer runs: `make demo` and `make test`.
BUILD ?= build
PYTHON ?= /usr/bin/python3
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build demo test bench clean

all: build

deps:
	bash scripts/install-deps

configure: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(PYTHON) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@if [ -f examples/mlp_classifier.py ] && [ -d $(BUILD)/python/lazytensor ]; then \
	  PYTHONPATH=$(BUILD)/python $(PYTHON) examples/mlp_classifier.py; \
	else \
	  $(BUILD)/examples/demo; \
	fi

test: build
	cd $(BUILD) && ctest --output-on-failure -j 2

bench: build
	@if [ -x tools/run-bench ]; then tools/run-bench $(BUILD); else echo "no benchmarks yet"; fi

clean:
	rm -rf $(BUILD)
