# lazytensor — the two commands a newcomer runs: `make demo` and `make test`.
BUILD ?= build
PYTHON ?= /usr/bin/python3
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build demo test bench fuzz test-asan test-asan-schedule test-tsan clean

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

# Differential fuzzing for a given time or count: make fuzz FUZZ_ARGS="--seconds 600"
FUZZ_ARGS ?= --seconds 120
fuzz: build
	$(BUILD)/tools/lt-fuzz $(FUZZ_ARGS)

# The C++ suite under AddressSanitizer + UndefinedBehaviorSanitizer (JIT-ed code
# is not instrumented; everything else is). Python tests are left out: the
# interpreter is not built with ASan.
test-asan: deps
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLT_SANITIZE=address,undefined \
	  -DLT_WITH_PYTHON=OFF -DPython_EXECUTABLE=$(PYTHON)
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  LT_FUZZ_PROGRAMS=300 ctest --output-on-failure -j 2

# The scheduler alone under ASan + UBSan on 20,000 fuzzer programs x 3 policies:
# a few minutes, where test-asan takes ~80 (it builds the LLVM JIT too).
test-asan-schedule: deps
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLT_SANITIZE=address,undefined \
	  -DLT_WITH_PYTHON=OFF -DPython_EXECUTABLE=$(PYTHON)
	cmake --build build-asan -j $(JOBS) --target lt-schedule-fuzz
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 build-asan/tools/lt-schedule-fuzz 1 20000

# The concurrency tests under ThreadSanitizer (only their binary is built: ctest -R concurrency runs nothing else).
test-tsan: deps
	cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLT_SANITIZE=thread \
	  -DLT_WITH_PYTHON=OFF -DPython_EXECUTABLE=$(PYTHON)
	cmake --build build-tsan -j $(JOBS) --target test_concurrency
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -R concurrency

clean:
	rm -rf $(BUILD)
