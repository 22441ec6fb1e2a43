// runtime/cpu_backend.cpp — trace cache, kernel cache and the launch loop for "cpu".
#include "runtime/cpu_backend.h"

#if LT_HAVE_CPU_JIT  // the cache layer is also built for CUDA alone (LT_WITH_LLVM=OFF)

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "cache/debug.h"
#include "cache/kernel_cache.h"
#include "cache/trace_cache.h"
#include "ir/counters.h"
#include "ir/error.h"
#include "jit/cpu/interpreter.h"
#include "jit/cpu/jit.h"
#include "runtime/background_worker.h"
#include "runtime/executable.h"
#include "scheduler/generic.h"
#include "trace/capture.h"

namespace lt {

namespace counters {
Counter trace_cache_hits("trace_cache_hits");
Counter trace_cache_misses("trace_cache_misses");
Counter kernels_compiled("kernels_compiled");
Counter compile_ms("compile_ms");
Counter kernels_launched("kernels_launched");
Counter kernels_promoted("kernels_promoted");  // recompiled at Tier::Full after running at Quick
Counter promote_ms("promote_ms");
Counter math_functions_compiled("math_functions_compiled");
Counter math_compile_ms("math_compile_ms");
Counter runtime_functions_compiled("runtime_functions_compiled");  // matmul micro-kernels compiled (not loaded from disk)
Counter runtime_compile_ms("runtime_compile_ms");
Counter kernels_generic("kernels_generic");  // plan kernels rewritten to a shape-generic form (scheduler/generic.h)
Counter kernels_specialised("kernels_specialised");  // generic kernels promoted as their concrete form (promote())
Counter kernels_interpreted("kernels_interpreted");  // kernels new to the process that started in the interpreter
Counter kernels_tiered_up("kernels_tiered_up");      // interpreted kernels compiled (Tier::Quick) once hot
}  // namespace counters

namespace {

using cache_debug::Clock;
using cache_debug::ms_between;

using cache_debug::debug_level;

/// Identity of the code generator: a hash of the shared library that holds
/// the JIT (its size and bytes), so objects cached by another build of
/// lazytensor — whose codegen may differ for the same kernel IR — never match.
const std::string& jit_build_id() {
  static const std::string id = [] {
    Dl_info info{};
    if (!::dladdr(reinterpret_cast<void*>(&cpu::compile_kernel_object), &info) || !info.dli_fname) return std::string("unknown");
    std::ifstream in(info.dli_fname, std::ios::binary);
    if (!in) return cat("path:", info.dli_fname);
    StableHasher h;
    std::string buf(1 << 20, '\0');
    uint64_t total = 0;
    while (in) {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      std::streamsize n = in.gcount();
      if (n <= 0) break;
      total += static_cast<uint64_t>(n);
      for (std::streamsize i = 0; i + 8 <= n; i += 8) {
        uint64_t w;
        std::memcpy(&w, buf.data() + i, 8);
        h.add(w);
      }
      if (n % 8) h.add_bytes(buf.data() + (n - n % 8), static_cast<size_t>(n % 8));
    }
    return cat(hash_hex(h.add(total).finish()), ":", total);
  }();
  return id;
}

/// The disk-cache key of one kernel's object: kernel IR, target, JIT build
/// (and the tier, for a Quick object).
Hash128 kernel_key(const Kernel& k, cpu::Tier tier = cpu::Tier::Full) {
  StableHasher h;
  h.add(k.hash()).add_string(cpu::target_id()).add_string(jit_build_id());
  if (tier == cpu::Tier::Quick) h.add_string("tier:quick");
  return h.finish();
}

/// Whether `concrete` can be launched with the buffers and scalar bits of
/// `generic`, its shape-generic rewrite (scheduler/generic.h): the same
/// buffers, and its scalar slots the generic kernel's first ones (the rewrite
/// appends its index-argument slots), bound alike.
bool launches_as_prefix(const Kernel& concrete, const Kernel& generic) {
  if (concrete.buffers.size() != generic.buffers.size() ||
      concrete.scalar_types.size() > generic.scalar_types.size() ||
      concrete.scalar_slots.size() != concrete.scalar_types.size() ||
      generic.scalar_slots.size() != generic.scalar_types.size())
    return false;
  for (size_t s = 0; s < concrete.scalar_types.size(); ++s) {
    if (concrete.scalar_types[s] != generic.scalar_types[s] || concrete.scalar_slots[s] != generic.scalar_slots[s])
      return false;
    if (concrete.scalar_slots[s] == kIndexArgSlot &&
        (s >= concrete.index_args.size() || s >= generic.index_args.size() ||
         concrete.index_args[s] != generic.index_args[s]))
      return false;
  }
  return true;
}

/// Whether environment variable `name` is set to exactly `value`.
bool env_is(const char* name, const char* value) {
  const char* e = std::getenv(name);
  return e && std::strcmp(e, value) == 0;
}

/// Environment variable `name` in milliseconds (`default_ms` when unset or
/// empty, at least 0), as nanoseconds.
int64_t env_ms_as_ns(const char* name, double default_ms) {
  const char* e = std::getenv(name);
  double ms = e && *e ? std::atof(e) : default_ms;
  return static_cast<int64_t>(std::max(0.0, ms) * 1e6);
}

/// Shape-generic kernels (scheduler/generic.h): on unless LT_GENERIC_KERNELS=0
/// or cpu_set_generic_kernels(false).
std::atomic<bool>& generic_kernels_flag() {
  static std::atomic<bool> on{!env_is("LT_GENERIC_KERNELS", "0")};
  return on;
}
bool generic_kernels_enabled() { return generic_kernels_flag().load(std::memory_order_relaxed); }

/// Tiers (jit/cpu/jit.h, docs/cpu-jit.md "Tiers"). LT_TIERED=0 compiles every
/// kernel at Full straight away. A Quick kernel is recompiled at Full, once,
/// after its launches have taken LT_TIER_UP_MS in all (default 30: about the
/// time a Full compile costs, so promoting at most doubles what the kernel
/// has cost so far, and repays itself soon after), at the end of the sync
/// that made it hot; LT_TIER_BACKGROUND=1 on the background worker
/// (runtime/background_worker.h) while the program goes on instead. On this
/// project's 2-vCPU hosts the background compile takes a core from the
/// kernels and made a GPT training loop slower (docs/cpu-jit.md, "Tiers").
bool tiering_enabled() {
  static const bool on = !env_is("LT_TIERED", "0");
  return on;
}

bool promote_in_background() {
  static const bool on = env_is("LT_TIER_BACKGROUND", "1");
  return on;
}

int64_t tier_up_ns() {
  static const int64_t ns = env_ms_as_ns("LT_TIER_UP_MS", 30.0);
  return ns;
}

/// The interpreter tier (jit/cpu/interpreter.h): a kernel it can run, whose
/// one interpreted launch should take less than LT_INTERPRET_UP_MS
/// (interpreted_cost_ns), and that no cache holds compiled, runs there first;
/// it is compiled at the quick tier once its interpreted launches have taken
/// LT_INTERPRET_UP_MS (default 2: about what its quick compile costs) in all,
/// or after kInterpretLaunches launches. LT_INTERPRETER=0 compiles every
/// kernel before its first launch.
std::atomic<bool>& interpreter_flag() {
  static std::atomic<bool> on{!env_is("LT_INTERPRETER", "0")};
  return on;
}

/// Set on the background worker's thread (its jobs: promotions, tier-ups).
thread_local bool t_background_job = false;

/// Interpreted kernels are compiled on the background worker unless
/// LT_INTERPRET_BACKGROUND=0: a quick compile is a few milliseconds, and the
/// interpreted code keeps running meanwhile. (Quick-to-full promotions stay
/// synchronous unless LT_TIER_BACKGROUND=1; see promote_in_background.)
bool tier_up_in_background() {
  static const bool on = !env_is("LT_INTERPRET_BACKGROUND", "0") || promote_in_background();
  return on;
}

/// Interpreted kernels compiled at the end of one sync, at most (launch()).
constexpr size_t kTierUpsPerSync = 8;
/// An interpreted kernel launched this often is compiled whatever its time:
/// it is part of a loop, whose steady state should not run interpreted code.
constexpr int64_t kInterpretLaunches = 4;

int64_t interpret_up_ns() {
  static const int64_t ns = env_ms_as_ns("LT_INTERPRET_UP_MS", 2.0);
  return ns;
}

/// A new kernel starts in the interpreter when one interpreted launch is
/// estimated (interpreted_cost_ns) at most this: about a quick-tier compile
/// with its math function here (3-12 ms), which is what the launch would
/// otherwise wait for. A 16M-element kernel (110 ms interpreted) compiles at once.
int64_t interpret_max_ns() {
  static const int64_t ns = env_ms_as_ns("LT_INTERPRET_MAX_MS", 8.0);
  return ns;
}

/// LT_INTERPRET_CHECK=1 (tests, lt-fuzz --interpret-check): every interpreted
/// launch also runs the kernel's compiled code on the same inputs and fails
/// unless both wrote the same bits (NaNs compare equal whatever their payload).
bool interpret_check() {
  static const bool on = env_is("LT_INTERPRET_CHECK", "1");
  return on;
}

/// Whether two buffers of dtype `dt` hold the same values bit for bit, any NaN equal to any NaN.
bool same_bits(const char* a, const char* b, DType dt, int64_t numel) {
  const size_t es = dtype_size(dt);
  for (int64_t i = 0; i < numel; ++i) {
    const char* x = a + i * es;
    const char* y = b + i * es;
    if (std::memcmp(x, y, es) == 0) continue;
    if (dt == DType::Float32) {
      float f, g;
      std::memcpy(&f, x, 4), std::memcpy(&g, y, 4);
      if (std::isnan(f) && std::isnan(g)) continue;
    } else if (dt == DType::Float64) {
      double f, g;
      std::memcpy(&f, x, 8), std::memcpy(&g, y, 8);
      if (std::isnan(f) && std::isnan(g)) continue;
    } else if (dt == DType::Float16 || dt == DType::BFloat16) {
      uint16_t f, g;
      std::memcpy(&f, x, 2), std::memcpy(&g, y, 2);
      const uint16_t exp = dt == DType::Float16 ? 0x7C00 : 0x7F80;
      auto nan = [&](uint16_t h) { return (h & exp) == exp && (h & (0x7FFF & ~exp)) != 0; };
      if (nan(f) && nan(g)) continue;
    }
    return false;
  }
  return true;
}

/// Test hook: LT_TEST_FAIL_COMPILE=1 (or "all") fails every kernel compile,
/// any other value fails kernels whose name contains it.
void maybe_inject_compile_fault(const Kernel& k) {
  const char* f = std::getenv("LT_TEST_FAIL_COMPILE");
  if (!f || !*f || std::strcmp(f, "0") == 0) return;
  if (std::strcmp(f, "1") == 0 || std::strcmp(f, "all") == 0 || k.name.find(f) != std::string::npos)
    fail(ErrorKind::Runtime, "injected compile failure (LT_TEST_FAIL_COMPILE=", f, ")");
}

/// Writes a kernel that failed to compile where a user can attach it to a bug
/// report: LT_DUMP_DIR if set, else the temp directory. Returns the path ("" if none).
std::string dump_failed_kernel(const Kernel& k, const std::string& error) {
  std::error_code ec;
  std::string dir;
  if (const char* d = std::getenv("LT_DUMP_DIR"); d && *d) dir = d;
  else dir = std::filesystem::temp_directory_path(ec).string();
  if (dir.empty()) dir = "/tmp";
  std::string path = cat(dir, "/lt-failed-kernel-", hash_hex(k.hash()), ".txt");
  std::ofstream out(path);
  if (!out) return "";
  out << "# kernel " << k.name << " failed to compile for " << cpu::target_id() << "\n# error: " << error << "\n"
      << print_kernel(k);
  return out ? path : "";
}

// Wall-clock compile time of the most recent kernels (cpu_compile_times_ms()).
constexpr size_t kCompileLog = 4096;
std::mutex compile_log_mu;
std::vector<double> compile_log;  // a ring of kCompileLog
size_t compile_log_next = 0;

void record_compile_time(double ms) {
  std::lock_guard<std::mutex> lock(compile_log_mu);
  if (compile_log.size() < kCompileLog) compile_log.push_back(ms);
  else compile_log[compile_log_next % kCompileLog] = ms;
  ++compile_log_next;
}

/// A kernel running at Tier::Quick: its launch time so far, and the Full
/// entry once compiled (read and published with std::atomic_load/store:
/// other threads may be launching the same executable).
/// A kernel running in the interpreter, shared by every executable that
/// holds it (a generation loop's traces, one per length, share their
/// kernels): its interpreted time in all, and the Quick entry once compiled.
struct Interpreted {
  std::atomic<int64_t> ns{0};
  std::atomic<int64_t> launches{0};
  std::atomic<bool> started{false};
  /// The sync that first ran it: it is compiled at the end of a later one, so
  /// a cold first step compiles none of what it interpreted.
  int64_t first_sync = 0;
  std::shared_ptr<const cpu::KernelEntry> quick;  ///< published with std::atomic_store
};

struct Promotion {
  /// Set for a kernel that starts in the interpreter (its entry in Executable::entries is empty).
  std::shared_ptr<Interpreted> interpreted;
  std::atomic<int64_t> run_ns{0};
  /// Set by the first launch, which is not counted: it holds one-time costs
  /// (a matmul's micro-kernel compile, fresh pages) the full tier would pay too.
  std::atomic<bool> launched{false};
  std::atomic<bool> started{false};
  std::shared_ptr<const cpu::KernelEntry> full;
};

/// The kernels of a new executable, fetched (from memory, from disk, or
/// compiled) on worker threads while its first launch runs: launch() waits
/// for each kernel just before running it, and fetches one that no thread
/// has started itself. So a cold sync's kernels run (interpreted, or as soon
/// as their compile is done) while later ones still compile, instead of after
/// the last compile.
class Fetch {
 public:
  Fetch(size_t n, std::function<void(size_t)> one)
      : n_(n), one_(std::move(one)), state_(new std::atomic<int>[n]) {
    for (size_t d = 0; d < n; ++d) state_[d].store(kTodo);
  }
  ~Fetch() { join(); }
  Fetch(const Fetch&) = delete;
  Fetch& operator=(const Fetch&) = delete;

  void start(size_t threads) {
    for (size_t t = 0; t < threads && t < n_; ++t) workers_.emplace_back([this] {
      for (size_t d; (d = next_.fetch_add(1)) < n_;)
        if (take(d)) fetch(d);
    });
  }
  /// Returns once kernel `d` is fetched (fetching it here if no thread took it); rethrows its failure.
  void wait(size_t d) {
    if (state_[d].load(std::memory_order_acquire) == kDone) return;
    if (take(d)) fetch(d);
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return state_[d].load() >= kDone; });
    if (state_[d].load() == kFailed) std::rethrow_exception(error_);
  }
  /// Fetches what is left, joins the workers and rethrows the first failure.
  void finish() {
    for (size_t d = 0; d < n_ && !failed_.load(); ++d)
      if (take(d)) fetch(d);
    join();
    one_ = nullptr;  // drops what the fetch captured
    if (error_) std::rethrow_exception(error_);
  }

 private:
  static constexpr int kTodo = 0, kTaken = 1, kDone = 2, kFailed = 3;
  bool take(size_t d) {
    int todo = kTodo;
    return state_[d].compare_exchange_strong(todo, kTaken);
  }
  void fetch(size_t d) {
    int result = kDone;
    try {
      one_(d);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_) error_ = std::current_exception();
      failed_.store(true);
      result = kFailed;
      next_.store(n_);  // the workers stop after their current kernel
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      state_[d].store(result, std::memory_order_release);
    }
    cv_.notify_all();
  }
  void join() {
    for (std::thread& t : workers_)
      if (t.joinable()) t.join();
    workers_.clear();
  }

  size_t n_;
  std::function<void(size_t)> one_;
  std::unique_ptr<std::atomic<int>[]> state_;
  std::atomic<size_t> next_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};
  std::vector<std::thread> workers_;
};

/// A trace's plan and per kernel its loaded code (`entries`; empty for one
/// that starts in the interpreter), plus what tiering and the pipelined first
/// launch keep.
struct Executable : exec::Executable<cpu::KernelEntry> {
  std::vector<std::unique_ptr<Promotion>> promotions;  // per kernel; null where it runs at Full
  std::vector<size_t> first;  // the first kernel with the same key (whose entry it shares)
  /// The first kernel with the same key and, for a shape-generic kernel, the
  /// same concrete values: whose promotion it shares (`first` but for
  /// generic kernels of one structure at several sizes in one plan).
  std::vector<size_t> promoted_with;
  /// Per kernel rewritten to a shape-generic form: its concrete form (null
  /// elsewhere). A generic kernel hot at its quick tier is promoted to the
  /// full tier as this kernel (promote()): the code specialised to its sizes.
  std::vector<std::shared_ptr<const Kernel>> concrete;
  /// Kernel `i`'s concrete form, or null where it runs as planned.
  const Kernel* concrete_of(size_t i) const { return i < concrete.size() ? concrete[i].get() : nullptr; }
  std::vector<size_t> slot;   // per kernel: the index of its first among the distinct kernels (Fetch)
  int generic = 0;            // plan kernels rewritten to a shape-generic form (LT_DEBUG=1)
  /// While a new executable's first launch runs: its kernels being fetched.
  mutable std::unique_ptr<Fetch> fetch;  // reset by complete() once every kernel is fetched
  Hash128 key;                    // its trace-cache key, while it is not cached yet (pipelined)
  std::vector<double> fetch_ms;   // per distinct kernel: compile ms (Fetch)
  std::vector<int> fetch_counts;  // per distinct kernel: kernels compiled
};

class CpuBackend final : public exec::Executor<Executable> {
 public:
  std::string_view name() const override { return "cpu"; }
  std::vector<BufferPtr> run(const Trace& trace, const RunOptions& options) override;
  bool run_cached(const Hash128& hash, const std::vector<BufferPtr>& params, const std::vector<ScalarValue>& scalars,
                  const RunOptions& options, std::vector<BufferPtr>* outputs) override;

  /// The executable of `trace`: cached, or planned now. A new one is
  /// inserted into the trace cache once its kernels are fetched; with
  /// `pipelined` that is left to its first launch (launch(), run()), which
  /// runs its kernels while later ones are still being fetched.
  std::shared_ptr<const Executable> executable(const Trace& trace, const RunOptions& options, bool* hit,
                                               double* compile_ms, int* compiled, bool pipelined = false);
  void clear() {
    clear_traces();
    generic_.clear();
    std::lock_guard<std::mutex> lock(mu_);
    kernels_.clear();
  }

 private:
  /// The kernel's object at `tier`: from memory, from disk, or compiled
  /// (counted in *compile_ms and *compiled), unless `compile` is false
  /// (then an empty entry when it is in neither cache).
  /// A `promotion` compile is counted in kernels_promoted/promote_ms only
  /// (promote()), not in kernels_compiled, compile_ms or cpu_compile_times_ms().
  cpu::KernelEntry kernel(const Kernel& k, double* compile_ms, int* compiled, cpu::Tier tier = cpu::Tier::Full,
                          bool compile = true, bool promotion = false);
  /// Loads the math functions a Quick object of `k` calls (disk cache, or compiled).
  void ensure_math_functions(const Kernel& k) { ensure_math_functions(cpu::kernel_math_functions(k)); }
  void ensure_math_functions(const std::vector<std::string>& names);
  /// Links the process-wide functions a MatMul kernel calls (its micro-kernel),
  /// from the disk cache or compiled and stored, on the fetching thread.
  void ensure_runtime_functions(const Kernel& k, bool interpreted);
  /// Recompiles kernel `ki` of `exe` at Full and publishes it; a failure is
  /// logged and leaves the Quick code running.
  void promote(const Executable& exe, size_t ki);
  /// Compiles interpreted kernel `ki` of `exe` at Quick and publishes it; a
  /// failure is logged and leaves it in the interpreter.
  void tier_up(const Executable& exe, size_t ki);
  /// Fetches kernel `i` of a new executable (Fetch): its entry at the tier it
  /// starts at, and its promotion where it has a quick tier.
  void fetch_one(Executable& exe, size_t i, double* ms, int* counts);
  /// Binds buffers and runs the plan's kernels; the outputs in trace order.
  std::vector<BufferPtr> launch(const std::shared_ptr<const Executable>& exe, const std::vector<BufferPtr>& params,
                                const std::vector<ScalarValue>& scalars, const Hash128& hash, bool hit, int compiled,
                                double compile_ms);

  /// LT_INTERPRET_CHECK: runs `k` interpreted and compiled from the same
  /// inputs and fails unless they wrote the same bits; the buffers are left
  /// as they were (the caller then runs it for real).
  void check_interpreter(const Kernel& k, void* const* ptrs, const int64_t* scalars);

  /// Waits for a new executable's kernels (Executable::fetch) and rethrows a failed fetch.
  void complete(const Executable& exe);

  /// Remembers a loaded kernel without keeping it loaded (`fn.keep` is left empty).
  void remember(const Hash128& key, const cpu::KernelEntry& fn);

  GenericKernels generic_;        // kernel structures seen, for shape-generic kernels
  std::mutex mu_;  // guards kernels_
  // Kernels by cache key, held weakly: the executables own them, so a kernel
  // whose last trace was evicted is unloaded and comes back from disk.
  struct KnownKernel {
    cpu::KernelEntry fn;  // without `keep`
    std::weak_ptr<const void> keep;
  };
  absl::flat_hash_map<Hash128, KnownKernel> kernels_;
  size_t kernels_pruned_at_ = 64;
  /// Kernels in the interpreter by their Quick key (guarded by mu_), held
  /// weakly by this map and strongly by the executables' promotions.
  absl::flat_hash_map<Hash128, std::weak_ptr<Interpreted>> interpreted_;
  std::atomic<int64_t> syncs_{0};  // launch() calls, numbering the syncs for Interpreted::first_sync
  std::atomic<bool> compiled_here_{false};  // some kernel was compiled off the background worker
  /// The shared interpreter state of `k` (made on first use).
  std::shared_ptr<Interpreted> interpreted_state(const Kernel& k);
};

using exec::hash_of;
using exec::trace_key;

cpu::KernelEntry CpuBackend::kernel(const Kernel& k, double* compile_ms, int* compiled, cpu::Tier tier, bool compile,
                                    bool promotion) {
  Hash128 key = kernel_key(k, tier);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = kernels_.find(key);
    if (it != kernels_.end()) {
      cpu::KernelEntry fn = it->second.fn;
      if ((fn.keep = it->second.keep.lock())) return fn;
      // Unloaded since: load it again below (from disk, or compile).
    }
  }
  std::shared_ptr<KernelCache> disk = kernel_cache();
  std::string symbol = cpu::kernel_symbol(k, tier);
  if (std::optional<std::string> bytes = disk->load(key)) {
    try {
      if (tier == cpu::Tier::Quick) ensure_math_functions(k);
      // A MatMul kernel's micro-kernel is linked with its object: its first
      // launch then has nothing to compile.
      ensure_runtime_functions(k, /*interpreted=*/false);
      cpu::KernelEntry fn = cpu::load_kernel_entry({symbol, std::move(*bytes)});
      fn.reduces_columns = cpu::kernel_reduces_columns(k);
      if (debug_level() >= 2) std::fprintf(stderr, "[lt] loaded %s from %s\n", k.name.c_str(), disk->path_for(key).c_str());
      if (debug_level() >= 4) std::fprintf(stderr, "%s\n", cpu::kernel_llvm_ir(k, true, tier).c_str());
      remember(key, fn);
      return fn;
    } catch (const Error& e) {
      disk->reject(key, e.what());  // intact on disk but unusable: rebuild it
    }
  }
  if (!compile) return cpu::KernelEntry();
  ensure_runtime_functions(k, /*interpreted=*/false);
  auto t0 = Clock::now();
  cpu::CompileTimes times;
  cpu::ObjectCode obj;
  try {
    maybe_inject_compile_fault(k);
    obj = cpu::compile_kernel_object(k, &times, tier);
    if (!t_background_job) compiled_here_.store(true);
  } catch (const std::exception& e) {
    std::string dumped = dump_failed_kernel(k, e.what());
    fail(ErrorKind::Runtime, "cpu jit: failed to compile kernel ", k.name, " (", hash_hex(k.hash()), "): ", e.what(),
         dumped.empty() ? std::string() : cat("\nthe kernel was written to ", dumped));
  }
  if (tier == cpu::Tier::Quick) ensure_math_functions(k);  // before the load that links against them
  cpu::KernelEntry fn = cpu::load_kernel_entry(obj);
  fn.reduces_columns = cpu::kernel_reduces_columns(k);
  double ms = ms_between(t0, Clock::now());
  *compile_ms += ms;
  ++*compiled;
  if (!promotion) {
    record_compile_time(ms);
    counters::kernels_compiled.add();
    counters::compile_ms.add(static_cast<int64_t>(ms + 0.5));
  }
  if (debug_level() >= 2)
    std::fprintf(stderr, "[lt] compiled %s%s in %.2f ms (ir %.2f, opt %.2f, emit %.2f; %zu bytes)\n", k.name.c_str(),
                 tier == cpu::Tier::Quick ? " (quick tier)" : "", ms, times.codegen_ms, times.optimize_ms, times.emit_ms,
                 obj.bytes.size());
  if (debug_level() >= 4) std::fprintf(stderr, "%s\n", cpu::kernel_llvm_ir(k, true, tier).c_str());
  disk->store(key, obj.bytes);  // failure is counted and logged; the kernel still runs from memory
  remember(key, fn);
  return fn;
}

namespace {
// Links one process-wide function (a math function, a matmul micro-kernel)
// from the disk cache, under `kind:symbol` for this target and JIT build, or
// compiles, links and stores it. The caller holds its kind's mutex and has
// found the function not linked; `what` names it in the LT_DEBUG line.
void link_cached_function(const char* kind, const char* what, const std::string& symbol,
                          const std::function<cpu::ObjectCode()>& compile, void (*load)(const cpu::ObjectCode&),
                          Counter& compiled, Counter& compile_ms) {
  std::shared_ptr<KernelCache> disk = kernel_cache();
  Hash128 key = StableHasher().add_string(cat(kind, ":", symbol)).add_string(cpu::target_id()).add_string(jit_build_id()).finish();
  if (std::optional<std::string> bytes = disk->load(key)) {
    try {
      load({symbol, std::move(*bytes)});
      return;
    } catch (const Error& e) {
      disk->reject(key, e.what());
    }
  }
  auto t0 = Clock::now();
  cpu::ObjectCode obj = compile();
  load(obj);
  double ms = ms_between(t0, Clock::now());
  compiled.add();
  compile_ms.add(static_cast<int64_t>(ms + 0.5));
  if (debug_level() >= 1)
    std::fprintf(stderr, "[lt] compiled %s%s in %.2f ms (once per machine: cached)\n", what, symbol.c_str(), ms);
  disk->store(key, obj.bytes);
}
}  // namespace

void CpuBackend::ensure_math_functions(const std::vector<std::string>& names) {
  static std::mutex mu;  // one compile per function, and none while another thread loads it
  for (const std::string& name : names) {
    if (cpu::math_function_loaded(name)) continue;
    std::lock_guard<std::mutex> lock(mu);
    if (cpu::math_function_loaded(name)) continue;
    link_cached_function("math", "math function ", name, [&] { return cpu::compile_math_function(name); },
                         &cpu::load_math_function, counters::math_functions_compiled, counters::math_compile_ms);
  }
}

void CpuBackend::ensure_runtime_functions(const Kernel& k, bool interpreted) {
  if (k.kind != KernelKind::MatMul) return;
  static std::mutex mu;  // one compile per function
  for (const cpu::RuntimeFunction& f : cpu::matmul_runtime_functions(k, interpreted)) {
    if (cpu::runtime_function_loaded(f.symbol)) continue;
    std::lock_guard<std::mutex> lock(mu);
    if (cpu::runtime_function_loaded(f.symbol)) continue;
    link_cached_function("runtime", "", f.symbol, f.compile, &cpu::load_runtime_function,
                         counters::runtime_functions_compiled, counters::runtime_compile_ms);
  }
}

void CpuBackend::promote(const Executable& exe, size_t ki) {
  // A shape-generic kernel is promoted as its concrete form: the full tier
  // of a kernel hot at one size is the code specialised to that size.
  const Kernel* concrete = exe.concrete_of(ki);
  const Kernel& k = concrete ? *concrete : exe.plan->kernels[ki];
  auto t0 = Clock::now();
  double ms = 0;
  int compiled = 0;
  try {
    cpu::KernelEntry full = kernel(k, &ms, &compiled, cpu::Tier::Full, /*compile=*/true, /*promotion=*/true);
    std::atomic_store(&exe.promotions[ki]->full, std::make_shared<const cpu::KernelEntry>(std::move(full)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[lt] warning: could not recompile %s at full tier (it keeps running at the quick tier): %s\n",
                 k.name.c_str(), e.what());
    return;
  }
  double total = ms_between(t0, Clock::now());
  counters::kernels_promoted.add();
  if (concrete) counters::kernels_specialised.add();
  counters::promote_ms.add(static_cast<int64_t>(total + 0.5));
  if (debug_level() >= 1)
    std::fprintf(stderr, "[lt] promoted %s to the full tier%s after %.1f ms of quick runs (%s, %.2f ms)\n", k.name.c_str(),
                 concrete ? ", specialised to its sizes," : "", exe.promotions[ki]->run_ns.load() / 1e6,
                 compiled ? "compiled" : "cached", total);
}

std::shared_ptr<Interpreted> CpuBackend::interpreted_state(const Kernel& k) {
  Hash128 key = kernel_key(k, cpu::Tier::Quick);
  std::lock_guard<std::mutex> lock(mu_);
  std::weak_ptr<Interpreted>& slot = interpreted_[key];
  if (std::shared_ptr<Interpreted> held = slot.lock()) return held;
  auto fresh = std::make_shared<Interpreted>();
  fresh->first_sync = syncs_.load() + 1;  // the next sync is the first that can run it
  slot = fresh;
  counters::kernels_interpreted.add();
  if (interpreted_.size() >= 2 * kernels_pruned_at_)
    absl::erase_if(interpreted_, [](const auto& kv) { return kv.second.expired(); });
  return fresh;
}

void CpuBackend::tier_up(const Executable& exe, size_t ki) {
  const Kernel& k = exe.plan->kernels[ki];
  Interpreted& state = *exe.promotions[ki]->interpreted;
  auto t0 = Clock::now();
  double ms = 0;
  int compiled = 0;
  try {
    cpu::KernelEntry quick = kernel(k, &ms, &compiled, cpu::Tier::Quick, /*compile=*/true, /*promotion=*/true);
    std::atomic_store(&state.quick, std::make_shared<const cpu::KernelEntry>(std::move(quick)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[lt] warning: could not compile %s (it keeps running in the interpreter): %s\n", k.name.c_str(),
                 e.what());
    return;
  }
  counters::kernels_tiered_up.add();
  if (debug_level() >= 1)
    std::fprintf(stderr, "[lt] compiled %s after %.1f ms in the interpreter (%s, %.2f ms)\n", k.name.c_str(),
                 state.ns.load() / 1e6, compiled ? "compiled" : "cached", ms_between(t0, Clock::now()));
}

void CpuBackend::check_interpreter(const Kernel& k, void* const* ptrs, const int64_t* scalars) {
  std::vector<std::string> before(k.buffers.size()), interpreted(k.buffers.size());
  auto bytes = [&](size_t b) { return static_cast<size_t>(k.buffers[b].numel) * dtype_size(k.buffers[b].dtype); };
  for (size_t b = 0; b < k.buffers.size(); ++b)
    if (k.buffers[b].written && ptrs[b]) before[b].assign(static_cast<const char*>(ptrs[b]), bytes(b));
  std::string interp_error, compiled_error;
  try {
    cpu::launch_interpreted(k, ptrs, scalars);
  } catch (const std::exception& e) {
    interp_error = e.what();
  }
  for (size_t b = 0; b < k.buffers.size(); ++b)
    if (k.buffers[b].written && ptrs[b]) {
      interpreted[b].assign(static_cast<const char*>(ptrs[b]), bytes(b));
      std::memcpy(ptrs[b], before[b].data(), bytes(b));
    }
  double ms = 0;
  int compiled = 0;
  cpu::KernelEntry fn = kernel(k, &ms, &compiled, cpu::Tier::Quick, /*compile=*/true, /*promotion=*/true);
  try {
    cpu::launch_kernel(k, fn, ptrs, scalars);
  } catch (const std::exception& e) {
    compiled_error = e.what();
  }
  if (interp_error != compiled_error)
    fail(ErrorKind::Runtime, "interpreter check: ", k.name, " raised \"", interp_error, "\" where its compiled code raised \"",
         compiled_error, "\"\n", print_kernel(k));
  for (size_t b = 0; b < k.buffers.size(); ++b) {
    if (!k.buffers[b].written || !ptrs[b]) continue;
    if (!same_bits(interpreted[b].data(), static_cast<const char*>(ptrs[b]), k.buffers[b].dtype, k.buffers[b].numel))
      fail(ErrorKind::Runtime, "interpreter check: ", k.name, " wrote other values than its compiled code into buffer ", b,
           "\n", print_kernel(k));
    std::memcpy(ptrs[b], before[b].data(), bytes(b));
  }
}

void CpuBackend::remember(const Hash128& key, const cpu::KernelEntry& fn) {
  KnownKernel known{fn, fn.keep};
  known.fn.keep.reset();
  std::lock_guard<std::mutex> lock(mu_);
  kernels_.insert_or_assign(key, std::move(known));
  if (kernels_.size() >= 2 * kernels_pruned_at_) {  // drop unloaded kernels now and then
    absl::erase_if(kernels_, [](const auto& kv) { return kv.second.keep.expired(); });
    kernels_pruned_at_ = std::max<size_t>(64, kernels_.size());
  }
}

std::shared_ptr<const Executable> CpuBackend::executable(const Trace& trace, const RunOptions& options, bool* hit,
                                                         double* compile_ms, int* compiled, bool pipelined) {
  const FusionPolicy& policy = fusion_policy(options.fusion);
  Hash128 key = trace_key(hash_of(trace), policy);
  if (std::shared_ptr<const Executable> cached = traces_.find(key)) {
    *hit = true;
    return cached;
  }
  *hit = false;
  auto exe = std::make_shared<Executable>();
  exe->plan = plan_miss(trace, policy, [&](Plan& plan) {
    // A kernel that recurs with other sizes is rewritten to its shape-generic
    // form, compiled once for all of them (scheduler/generic.h).
    if (!generic_kernels_enabled()) return;
    std::vector<Kernel> originals;
    int n = generic_.generalize_plan(&plan.kernels, &originals);
    counters::kernels_generic.add(n);
    exe->generic += n;
    if (n == 0) return;
    // Kept where specialised code computes the same bits (a MatMul kernel's
    // driver reads its sizes at launch anyway: it stays generic).
    exe->concrete.resize(plan.kernels.size());
    for (size_t i = 0; i < originals.size(); ++i) {
      if (originals[i].ops.empty()) continue;
      // The generic kernel sums as its concrete form (and every size of its
      // class, which then shares it) does.
      cpu::pin_reduction_order(&plan.kernels[i], originals[i]);
      if (launches_as_prefix(originals[i], plan.kernels[i]) &&
          originals[i].kind != KernelKind::MatMul && cpu::kernels_reduce_alike(originals[i], plan.kernels[i]))
        exe->concrete[i] = std::make_shared<const Kernel>(std::move(originals[i]));
    }
  });
  // The plan's kernels are fetched (memory, disk, or compiled) on several
  // threads at once; a kernel that occurs twice is fetched once.
  const std::vector<Kernel>& ks = exe->plan->kernels;
  std::vector<size_t> first(ks.size());  // index of the first kernel with the same key
  std::vector<size_t> distinct;
  // Per distinct kernel: the later kernels that share its entry but not its
  // promotion (the same generic kernel at other sizes).
  std::vector<std::vector<size_t>> own_promotion;
  std::vector<size_t> slot_of_first(ks.size(), 0);  // a distinct kernel's index in `distinct`
  exe->promoted_with.resize(ks.size());
  {
    absl::flat_hash_map<Hash128, size_t> seen, seen_concrete;
    for (size_t i = 0; i < ks.size(); ++i) {
      auto [it, fresh] = seen.try_emplace(kernel_key(ks[i]), i);
      first[i] = it->second;
      if (fresh) {
        slot_of_first[i] = distinct.size();
        distinct.push_back(i);
        own_promotion.emplace_back();
      }
      const Kernel* concrete = exe->concrete_of(i);
      if (!concrete) {
        exe->promoted_with[i] = first[i];
        continue;
      }
      auto [jt, fresh_values] = seen_concrete.try_emplace(kernel_key(*concrete), i);
      exe->promoted_with[i] = jt->second;
      if (fresh_values && !fresh) own_promotion[slot_of_first[first[i]]].push_back(i);
    }
  }
  exe->entries.resize(ks.size());
  exe->promotions.resize(ks.size());
  exe->first = first;
  for (size_t i = 0; i < ks.size(); ++i) exe->slot.push_back(slot_of_first[first[i]]);
  exe->fetch_ms.assign(distinct.size(), 0.0);
  exe->fetch_counts.assign(distinct.size(), 0);
  // A repeated kernel shares the first one's entry (launch() reads it at
  // `first`) and, at the same sizes, its promotion (at `promoted_with`).
  Executable* e = exe.get();  // the fetch is owned by the executable: no reference back
  exe->fetch = std::make_unique<Fetch>(distinct.size(), [this, e, distinct, own_promotion](size_t d) {
    const size_t i = distinct[d];
    if (!tiering_enabled() || !cpu::kernel_has_quick_tier(e->plan->kernels[i])) {
      fetch_one(*e, i, &e->fetch_ms[d], &e->fetch_counts[d]);
      return;
    }
    std::vector<size_t> sizes = {i};  // a generic kernel: the first kernel of each of its sizes here
    sizes.insert(sizes.end(), own_promotion[d].begin(), own_promotion[d].end());
    // A generic kernel promoted at a size before (an earlier executable, an
    // earlier process) starts with that specialised object, from memory or
    // disk; at every size, its generic code is not fetched at all.
    std::vector<std::shared_ptr<const cpu::KernelEntry>> specialised(sizes.size());
    bool everywhere = true;
    for (size_t s = 0; s < sizes.size(); ++s) {
      const size_t j = sizes[s];
      if (const Kernel* concrete = e->concrete_of(j)) {
        cpu::KernelEntry full = kernel(*concrete, &e->fetch_ms[d], &e->fetch_counts[d], cpu::Tier::Full, false);
        if (full.fn) specialised[s] = std::make_shared<const cpu::KernelEntry>(std::move(full));
      }
      everywhere = everywhere && specialised[s];
    }
    if (!everywhere) {
      fetch_one(*e, i, &e->fetch_ms[d], &e->fetch_counts[d]);
      if (!e->promotions[i]) return;  // its generic full object was cached: every size runs it
    }
    for (size_t s = 0; s < sizes.size(); ++s) {
      const size_t j = sizes[s];
      if (!e->promotions[j]) {
        e->promotions[j] = std::make_unique<Promotion>();
        if (!everywhere) e->promotions[j]->interpreted = e->promotions[i]->interpreted;  // shares i's quick code
      }
      if (!specialised[s]) continue;
      e->promotions[j]->started.store(true);
      std::atomic_store(&e->promotions[j]->full, specialised[s]);
    }
  });
  exe->fetch->start(cpu::compile_threads());
  if (pipelined) {
    exe->key = key;
    return exe;
  }
  complete(*exe);
  for (size_t d = 0; d < distinct.size(); ++d) *compile_ms += exe->fetch_ms[d], *compiled += exe->fetch_counts[d];
  return traces_.insert(key, std::move(exe));
}

void CpuBackend::fetch_one(Executable& e, size_t i, double* ms, int* counts) {
  const Kernel& k = e.plan->kernels[i];
  // A kernel with a quick tier starts there, unless its full object is
  // cached already (memory or disk: it was promoted before).
  if (!tiering_enabled() || !cpu::kernel_has_quick_tier(k)) {
    e.entries[i] = kernel(k, ms, counts);
    return;
  }
  cpu::KernelEntry full = kernel(k, ms, counts, cpu::Tier::Full, /*compile=*/false);
  if (full.fn) {
    e.entries[i] = std::move(full);
    return;
  }
  e.promotions[i] = std::make_unique<Promotion>();
  // Not compiled yet and the interpreter takes it: it starts there.
  if (interpreter_flag().load(std::memory_order_relaxed) && cpu::kernel_interpretable(k) &&
      cpu::interpreted_cost_ns(k) <= interpret_max_ns()) {
    cpu::KernelEntry quick = kernel(k, ms, counts, cpu::Tier::Quick, /*compile=*/false);
    if (!quick.fn) {
      ensure_math_functions(cpu::interpreter_math_functions(k));
      ensure_runtime_functions(k, /*interpreted=*/true);
      e.promotions[i]->interpreted = interpreted_state(k);
      return;
    }
    e.entries[i] = std::move(quick);
    return;
  }
  e.entries[i] = kernel(k, ms, counts, cpu::Tier::Quick);
}

void CpuBackend::complete(const Executable& exe) {
  if (!exe.fetch) return;
  exe.fetch->finish();  // rethrows a failed fetch: the executable is not cached
  exe.fetch.reset();
}

std::vector<BufferPtr> CpuBackend::run(const Trace& trace, const RunOptions& options) {
  bool hit = false;
  double compile_ms = 0;
  int compiled = 0;
  std::shared_ptr<const Executable> exe = executable(trace, options, &hit, &compile_ms, &compiled, /*pipelined=*/true);
  if (hit) return launch(exe, trace.params, trace.scalars, hash_of(trace), hit, compiled, compile_ms);
  // A new executable: its first launch waits for each kernel's fetch. It is
  // cached once every kernel is fetched (also when a kernel failed at run
  // time: the plan and its code are fine), not when a fetch failed.
  std::vector<BufferPtr> outputs;
  try {
    outputs = launch(exe, trace.params, trace.scalars, hash_of(trace), hit, compiled, compile_ms);
  } catch (...) {
    std::exception_ptr launch_error = std::current_exception();
    bool fetched = true;
    try {
      complete(*exe);
    } catch (...) {
      fetched = false;
    }
    if (fetched) traces_.insert(exe->key, exe);
    std::rethrow_exception(launch_error);
  }
  complete(*exe);  // done in launch(); a no-op here
  traces_.insert(exe->key, exe);
  return outputs;
}

bool CpuBackend::run_cached(const Hash128& hash, const std::vector<BufferPtr>& params,
                            const std::vector<ScalarValue>& scalars, const RunOptions& options,
                            std::vector<BufferPtr>* outputs) {
  Hash128 key = trace_key(hash, fusion_policy(options.fusion));
  std::shared_ptr<const Executable> exe = traces_.find(key);
  if (!exe) return false;
  *outputs = launch(exe, params, scalars, hash, true, 0, 0.0);
  return true;
}

std::vector<BufferPtr> CpuBackend::launch(const std::shared_ptr<const Executable>& held,
                                          const std::vector<BufferPtr>& params,
                                          const std::vector<ScalarValue>& scalars, const Hash128& hash, bool hit,
                                          int compiled, double compile_ms) {
  const Executable& exe = *held;
  (hit ? counters::trace_cache_hits : counters::trace_cache_misses).add();
  const Plan& plan = *exe.plan;
  auto t1 = Clock::now();

  // Bind buffers: params from the trace, fresh outputs, temporaries by slot.
  std::vector<BufferPtr> slots(plan.temp_slot_bytes.size());
  for (size_t s = 0; s < slots.size(); ++s) slots[s] = make_buffer(DType::Bool, plan.temp_slot_bytes[s]);
  std::vector<BufferPtr> bound = exec::bind_plan_buffers<BufferPtr>(
      plan, params, "cpu", [](const PlanBuffer&, const BufferPtr& p) { return p; },
      [](const PlanBuffer& b) { return make_buffer(b.dtype, b.numel); }, [&](int32_t slot) { return slots[slot]; });
  std::vector<void*> data(bound.size());
  for (size_t i = 0; i < bound.size(); ++i) data[i] = bound[i]->data();
  // The buffers fixed for the whole launch (trace parameters; outputs and
  // temporary slots are written by it): a MatMul kernel may read packed
  // panels of these kept from an earlier launch (jit/cpu/matmul.h).
  std::vector<const Buffer*> fixed(bound.size(), nullptr), kernel_fixed;
  for (size_t i = 0; i < bound.size(); ++i)
    if (plan.buffers[i].role == PlanBuffer::Role::Param) fixed[i] = bound[i].get();

  std::vector<size_t> promote_now;  // hot Quick kernels, recompiled once this sync's kernels have run
  std::vector<size_t> tier_up_now;  // hot interpreted kernels, compiled once this sync's kernels have run
  const int64_t sync = syncs_.fetch_add(1) + 1;
  exec::launch_kernels(plan, data, scalars, [&](size_t ki, const Kernel& k, void** ptrs, int64_t* scalar_bits) {
    if (exe.fetch) exe.fetch->wait(exe.slot[ki]);  // a new executable: this kernel's fetch
    auto k0 = Clock::now();
    const size_t pk = exe.promoted_with[ki];
    Promotion* promo = exe.promotions[pk].get();
    std::shared_ptr<const cpu::KernelEntry> full = promo ? std::atomic_load(&promo->full) : nullptr;
    // A generic kernel's full object is its concrete form's (promote()),
    // whose scalars are the generic kernel's first ones (launches_as_prefix).
    const Kernel* concrete = exe.concrete_of(pk);
    const Kernel& launched = full && concrete ? *concrete : k;
    Interpreted* interp = promo && !full ? promo->interpreted.get() : nullptr;
    std::shared_ptr<const cpu::KernelEntry> quick = interp ? std::atomic_load(&interp->quick) : nullptr;
    const cpu::KernelEntry& entry = full ? *full : quick ? *quick : exe.entries[exe.first[ki]];
    const Buffer* const* kfixed = nullptr;
    if (k.kind == KernelKind::MatMul) {
      kernel_fixed.clear();
      for (const KernelBuffer& kb : k.buffers)
        kernel_fixed.push_back(kb.plan_buffer >= 0 ? fixed[kb.plan_buffer] : nullptr);
      kfixed = kernel_fixed.data();
    }
    if (!entry.fn) {  // in the interpreter until it is hot
      if (interpret_check()) check_interpreter(k, ptrs, scalar_bits);
      cpu::launch_interpreted(k, ptrs, scalar_bits, kfixed);
      counters::kernels_launched.add();
      int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - k0).count();
      const bool hot = interp->ns.fetch_add(ns) + ns >= interpret_up_ns() ||
                       interp->launches.fetch_add(1) + 1 >= kInterpretLaunches;
      if (hot && sync > interp->first_sync && !interp->started.exchange(true)) tier_up_now.push_back(exe.first[ki]);
      if (debug_level() >= 2) {
        double ms = ms_between(k0, Clock::now());
        std::fprintf(stderr, "[lt]   %-40s %9.3f ms %8.2f GB/s (interpreted)\n", k.name.c_str(), ms,
                     ms > 0 ? static_cast<double>(k.bytes_moved()) / (ms * 1e6) : 0.0);
      }
      return;
    }
    cpu::launch_kernel(launched, entry, ptrs, scalar_bits, kfixed);
    counters::kernels_launched.add();
    if (promo && !full) {
      int64_t ns = promo->launched.exchange(true)
                       ? std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - k0).count()
                       : 0;
      // A generic kernel's promotion specialises it to its sizes as well,
      // which repays sooner (a Rows kernel of the CNN step measured 0.45 ms
      // generic at the quick tier, 0.09 generic at the full tier, 0.03-0.05
      // specialised): it comes after a third of the run time.
      const int64_t up = concrete ? tier_up_ns() / 3 : tier_up_ns();
      if (promo->run_ns.fetch_add(ns) + ns >= up && !promo->started.exchange(true))
        promote_now.push_back(pk);
    }
    if (debug_level() >= 2) {
      double ms = ms_between(k0, Clock::now());
      std::fprintf(stderr, "[lt]   %-40s %9.3f ms %8.2f GB/s\n", k.name.c_str(), ms,
                   ms > 0 ? static_cast<double>(k.bytes_moved()) / (ms * 1e6) : 0.0);
    }
  });
  // At most kTierUpsPerSync compiles per sync, the hottest first: a step
  // whose kernels all became hot at once spreads their compiles over the
  // next steps instead of pausing for all of them (the others stay
  // interpreted and are picked again at the end of the next sync).
  if (tier_up_now.size() > kTierUpsPerSync) {
    std::sort(tier_up_now.begin(), tier_up_now.end(), [&](size_t a, size_t b) {
      return exe.promotions[a]->interpreted->ns.load() > exe.promotions[b]->interpreted->ns.load();
    });
    for (size_t i = kTierUpsPerSync; i < tier_up_now.size(); ++i)
      exe.promotions[tier_up_now[i]]->interpreted->started.store(false);
    tier_up_now.resize(kTierUpsPerSync);
  }
  if (exe.fetch) {  // every kernel is fetched by now (each was waited for): the compile counts for LT_DEBUG
    exe.fetch->finish();
    for (size_t d = 0; d < exe.fetch_ms.size(); ++d) compile_ms += exe.fetch_ms[d], compiled += exe.fetch_counts[d];
  }
  for (size_t ki : tier_up_now) {
    // Not before this process has compiled on its own threads: the code
    // generator's statics are then made here, before the background worker's
    // exit hook (background_worker.cpp), and not under a compile at exit.
    if (tier_up_in_background() && compiled_here_.load())
      run_in_background([this, held, ki] {
        t_background_job = true;
        tier_up(*held, ki);
      });
    else
      tier_up(exe, ki);
  }
  for (size_t ki : promote_now) {
    if (promote_in_background())
      run_in_background([this, held, ki] {  // holds the executable until it has run
        t_background_job = true;
        promote(*held, ki);
      });
    else
      promote(exe, ki);
  }
  std::vector<BufferPtr> outputs;
  outputs.reserve(plan.outputs.size());
  for (int32_t b : plan.outputs) outputs.push_back(bound[b]);
  if (debug_level() >= 1) {
    auto t2 = Clock::now();
    std::fprintf(stderr, "[lt] sync trace=%s %s policy=%s kernels=%zu generic=%d compiled=%d compile_ms=%.2f run_ms=%.3f\n",
                 hash_hex(hash).c_str(), hit ? "hit" : "miss", plan.policy.c_str(), plan.kernels.size(), exe.generic,
                 compiled, compile_ms, ms_between(t1, t2));
  }
  return outputs;
}

CpuBackend& backend() {
  static CpuBackend* b = new CpuBackend();
  return *b;
}

}  // namespace

Backend& cpu_backend() { return backend(); }

std::shared_ptr<const Plan> cpu_plan_for(const Trace& trace, const RunOptions& options) {
  bool hit;
  double ms = 0;
  int n = 0;
  return backend().executable(trace, options, &hit, &ms, &n)->plan;
}

void cpu_clear_caches() { backend().clear(); }

void cpu_set_generic_kernels(bool on) { generic_kernels_flag().store(on); }
void cpu_set_interpreter(bool on) { interpreter_flag().store(on); }
bool cpu_interpreter() { return interpreter_flag().load(); }
bool cpu_generic_kernels() { return generic_kernels_enabled(); }

void cpu_wait_for_promotions() { wait_for_background_jobs(); }

std::vector<double> cpu_compile_times_ms() {
  std::lock_guard<std::mutex> lock(compile_log_mu);
  std::vector<double> out;
  out.reserve(compile_log.size());
  size_t n = compile_log.size(), first = compile_log_next - n;
  for (size_t i = 0; i < n; ++i) out.push_back(compile_log[(first + i) % kCompileLog]);
  return out;
}

}  // namespace lt

#endif  // LT_HAVE_CPU_JIT
