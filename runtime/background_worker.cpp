// runtime/background_worker.cpp — the background job thread (background_worker.h).
#include "runtime/background_worker.h"

#include <pthread.h>

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

namespace lt {
namespace {

struct Worker {
  std::mutex mu;
  std::condition_variable wake;  ///< a job was queued, or pause/stop changed
  std::condition_variable idle;  ///< a job finished
  std::deque<std::function<void()>> jobs;
  bool started = false;  ///< the thread exists (in this process)
  bool running = false;  ///< it is inside a job
  bool paused = false;   ///< a fork is under way: take no job
  bool stopping = false;  ///< process exit: take no job, leave
  std::thread* thread = nullptr;

  void loop() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      wake.wait(lock, [&] { return stopping || (!paused && !jobs.empty()); });
      if (stopping) return;
      std::function<void()> job = std::move(jobs.front());
      jobs.pop_front();
      running = true;
      lock.unlock();
      job();
      job = nullptr;  // what the job holds (an executable) is released off the lock
      lock.lock();
      running = false;
      idle.notify_all();
    }
  }
};

/// Jobs whose queuing registers the exit hook again (run_in_background).
constexpr int kExitHookJobs = 256;

// Never destroyed (jobs may be queued during exit); replaced in a forked child.
Worker* g_worker = new Worker();
Worker& worker() { return *g_worker; }

void stop_at_exit() {
  Worker& w = worker();
  {
    std::lock_guard<std::mutex> lock(w.mu);
    w.stopping = true;
    w.jobs.clear();
  }
  w.wake.notify_all();
  if (w.thread && w.thread->joinable()) w.thread->join();
}

// fork(): the worker finishes its job and waits; the forking thread holds the
// lock across the fork, so the child's copy of the state is consistent.
void before_fork() {
  Worker& w = worker();
  w.mu.lock();
  w.paused = true;
  while (w.running) {
    std::unique_lock<std::mutex> lock(w.mu, std::adopt_lock);
    w.idle.wait(lock);
    lock.release();
  }
}

void after_fork_in_parent() {
  Worker& w = worker();
  w.paused = false;
  w.mu.unlock();
  w.wake.notify_all();
}

// The thread stayed in the parent, and the copies of the condition variables
// may count its waits: the child starts from a fresh worker (the old one,
// locked, is left alone). The parent's queued jobs are dropped: the child
// promotes its own kernels when they get hot.
void after_fork_in_child() { g_worker = new Worker(); }

}  // namespace

void run_in_background(std::function<void()> job) {
  Worker& w = worker();
  {
    std::lock_guard<std::mutex> lock(w.mu);
    if (w.stopping) return;
    w.jobs.push_back(std::move(job));
    // Registered again with each of the first jobs: exit runs the handlers
    // registered last first, and the worker must be stopped before the
    // destructors of the function-local statics constructed since (LLVM's
    // code generator makes some on first use) run under a compile still going
    // on here. After kExitHookJobs jobs the code generator has made its
    // statics; the bound keeps a long-running process's exit list finite.
    static int hooked = 0;
    if (hooked < kExitHookJobs && std::atexit(stop_at_exit) == 0) ++hooked;
    if (!w.started) {
      static const bool hooks = [] {
        pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
        return true;
      }();
      (void)hooks;
      w.started = true;
      w.thread = new std::thread([&w] { w.loop(); });
    }
  }
  w.wake.notify_one();
}

void wait_for_background_jobs() {
  Worker& w = worker();
  std::unique_lock<std::mutex> lock(w.mu);
  w.idle.wait(lock, [&] { return w.stopping || !w.started || (w.jobs.empty() && !w.running); });
}

}  // namespace lt
