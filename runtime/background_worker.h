// runtime/background_worker.h — one thread that runs jobs in order, off the
// caller's thread: the cpu backend's promotions of hot kernels to the full
// tier (runtime/cpu_backend.cpp, docs/cpu-jit.md "Tiers").
//
// The thread starts with the first job. At exit the queued jobs are dropped
// and the one running is waited for (a compile must not run while libLLVM's
// statics are destroyed). Around fork() the worker is paused between jobs,
// so the child inherits no lock it holds; the child has no worker thread and
// runs its own later jobs on a new one.
#pragma once

#include <functional>

namespace lt {

/// Queues `job` for the worker thread. A job's exceptions are its own to catch.
void run_in_background(std::function<void()> job);

/// Returns once every job queued so far has run (tests, benchmarks).
void wait_for_background_jobs();

}  // namespace lt
