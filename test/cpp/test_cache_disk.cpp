// The on-disk kernel cache (cache/kernel_cache.h, docs/cache.md): reuse across
// processes, every kind of damaged file, several processes on one directory,
// unwritable and full directories, LRU eviction under the size cap, and a
// kernel that fails to compile. Cross-process cases run test/cache_probe.cpp.
#define BOOST_TEST_MODULE cache_disk
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "cache/kernel_cache.h"
#include "jit_test_util.h"

using namespace lt;
using namespace lt::test;
namespace fs = std::filesystem;

namespace {

/// Everything this run writes lives under one folder, removed at the end.
fs::path root() { return fs::path(LT_BINARY_DIR) / "test-cache-disk" / std::to_string(::getpid()); }

struct RemoveRoot {
  ~RemoveRoot() {
    std::error_code ec;
    fs::remove_all(root(), ec);
  }
};

std::string fresh_dir(const std::string& name) {
  fs::path p = root() / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

std::vector<fs::path> cache_files(const std::string& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".ltk") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

size_t temp_files(const std::string& dir) {
  size_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) ++n;
  return n;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_all(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << s;
}

struct Probe {
  std::map<std::string, std::string> kv;
  std::string err;
  int64_t operator[](const std::string& k) const {
    auto it = kv.find(k);
    BOOST_REQUIRE_MESSAGE(it != kv.end(), "cache_probe printed no " << k << "; stderr: " << err);
    return std::atoll(it->second.c_str());
  }
  std::string checksum() const { return kv.count("checksum") ? kv.at("checksum") : ""; }
};

Probe parse_probe(const std::string& out, const std::string& err) {
  Probe p;
  p.err = err;
  std::istringstream in(out);
  std::string tok;
  while (in >> tok) {
    size_t eq = tok.find('=');
    if (eq != std::string::npos) p.kv[tok.substr(0, eq)] = tok.substr(eq + 1);
  }
  return p;
}

/// The shell prefix that runs cache_probe with `env` (NAME=VALUE ...) and a clean cache environment.
std::string probe_command(const std::string& env, int variant, const std::string& out, const std::string& err) {
  return "env -u LT_CACHE -u LT_CACHE_MAX_BYTES -u LT_TEST_FAIL_COMPILE -u LT_TEST_FAIL_CACHE_WRITE -u LT_DEBUG -u LT_TIERED -u LT_TIER_UP_MS " +
         env +
         " '" LT_CACHE_PROBE "' " + std::to_string(variant) + " >'" + out + "' 2>'" + err + "'";
}

Probe run_probe(const std::string& env, int variant = 0) {
  std::string base = root() / "probe";
  std::string out = base + ".out", err = base + ".err";
  int rc = std::system(probe_command(env, variant, out, err).c_str());
  Probe p = parse_probe(read_all(out), read_all(err));
  BOOST_CHECK_MESSAGE(rc == 0, "cache_probe failed (" << rc << "): " << read_all(out) << p.err);
  return p;
}

std::string dir_env(const std::string& dir) { return "LT_CACHE_DIR='" + dir + "'"; }

/// Populates `dir` with one probe run; returns it.
Probe populate(const std::string& dir) {
  Probe p = run_probe(dir_env(dir));
  BOOST_REQUIRE_EQUAL(p["ok"], 1);
  BOOST_REQUIRE_GT(p["compiled"], 0);
  BOOST_REQUIRE_EQUAL(p["disk_loads"], 0);
  BOOST_REQUIRE_EQUAL(p["disk_stores"], p["compiled"]);
  BOOST_REQUIRE_EQUAL(cache_files(dir).size(), static_cast<size_t>(p["compiled"]));
  return p;
}

Hash128 key(uint64_t i) { return StableHasher().add(i).add_string("test key").finish(); }
std::string payload(uint64_t i, size_t n) {
  std::string s(n, '\0');
  for (size_t j = 0; j < n; ++j) s[j] = static_cast<char>((i * 131 + j * 7) & 0xff);
  return s;
}

void pause_for_mtime() { std::this_thread::sleep_for(std::chrono::milliseconds(30)); }  // coarse fs timestamps

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(RemoveRoot);

BOOST_AUTO_TEST_CASE(a_new_process_loads_every_kernel_from_disk) {
  std::string dir = fresh_dir("reuse");
  Probe first = populate(dir);
  Probe second = run_probe(dir_env(dir));
  BOOST_CHECK_EQUAL(second["ok"], 1);
  BOOST_CHECK_EQUAL(second["compiled"], 0);
  BOOST_CHECK_EQUAL(second["disk_loads"], first["compiled"]);
  BOOST_CHECK_EQUAL(second["disk_stores"], 0);
  BOOST_CHECK_EQUAL(second["disk_rejects"], 0);
  BOOST_CHECK_EQUAL(second.checksum(), first.checksum());
  BOOST_CHECK_EQUAL(temp_files(dir), 0u);
}

// Every kernel compiled before its first launch (no interpreter tier), for
// the tests that follow compiled objects through the tiers and the disk.
constexpr const char* kCompiled = " LT_INTERPRETER=0";

// Tiers (jit/cpu/jit.h): every kernel of the probe, its matmul too, starts at
// the quick tier (its exp/tanh/softmax kernels calling math functions
// compiled once and cached like kernels, the others plain). LT_TIER_UP_MS=0
// makes each hot after its first launch: it is recompiled at the full tier in
// the background (counted apart from kernels_compiled; the probe waits for
// the promotions) and stored, so a new process loads the full tier straight
// away and needs no math function. LT_TIERED=0 compiles the full tier only.
BOOST_AUTO_TEST_CASE(hot_kernels_are_promoted_and_a_new_process_starts_at_the_full_tier) {
  std::string dir = fresh_dir("tiers");
  Probe first = run_probe(dir_env(dir) + kCompiled);
  BOOST_REQUIRE_EQUAL(first["ok"], 1);
  BOOST_TEST(first["math_functions_compiled"] > 0);
  BOOST_TEST(first["kernels_promoted"] == 0);  // a few microseconds of runs: far from 30 ms
  BOOST_TEST(first["quick_kernels"] == first["kernels_compiled"]);  // every kernel, the matmul too
  BOOST_TEST(first["math_kernels"] > 0);
  BOOST_TEST(first["math_kernels"] < first["quick_kernels"]);  // kernels without transcendentals too
  Probe hot = run_probe(dir_env(dir) + kCompiled + " LT_TIER_UP_MS=0");
  BOOST_TEST(hot["ok"] == 1);
  BOOST_TEST(hot["compiled"] == 0);  // quick kernels and math functions came from disk
  // Every quick kernel once: the probe's kernels are tiny, so its generic
  // ones are promoted as they are, not specialised to each size.
  BOOST_TEST(hot["kernels_specialised"] == 0);
  BOOST_TEST(hot["kernels_promoted"] == first["quick_kernels"]);
  BOOST_TEST(hot["disk_stores"] == hot["kernels_promoted"]);
  BOOST_TEST(hot.checksum() == first.checksum());
  Probe warm = run_probe(dir_env(dir) + kCompiled);
  BOOST_TEST(warm["ok"] == 1);
  BOOST_TEST(warm["compiled"] == 0);
  BOOST_TEST(warm["kernels_promoted"] == 0);
  // One load per distinct kernel, all at the full tier (no math function is
  // needed), and the matmul's micro-kernel: nothing is compiled.
  BOOST_TEST(first["runtime_functions_compiled"] == 1);
  BOOST_TEST(warm["disk_loads"] == first["kernels_compiled"] + 1);
  BOOST_TEST(warm.checksum() == first.checksum());

  Probe flat = run_probe(dir_env(fresh_dir("untiered")) + kCompiled + " LT_TIERED=0");
  BOOST_TEST(flat["ok"] == 1);
  BOOST_TEST(flat["math_functions_compiled"] == 0);
  BOOST_TEST(flat["kernels_compiled"] == first["kernels_compiled"]);
  BOOST_TEST(flat["kernels_promoted"] == 0);
  BOOST_TEST(flat["disk_stores"] == flat["kernels_compiled"] + flat["runtime_functions_compiled"]);
  BOOST_TEST(flat.checksum() == first.checksum());
}

BOOST_AUTO_TEST_CASE(damaged_files_are_rejected_removed_and_rebuilt) {
  struct Damage {
    const char* name;
    void (*apply)(std::string&);
    bool passes_checks = false;  ///< read as a load, refused by LLVM afterwards
  };
  Damage damages[] = {
      {"truncated payload", [](std::string& s) { s.resize(s.size() - s.size() / 3); }},
      {"truncated header", [](std::string& s) { s.resize(20); }},
      {"empty", [](std::string& s) { s.clear(); }},
      {"bit flip in payload", [](std::string& s) { s[KernelCache::kHeaderSize + (s.size() - KernelCache::kHeaderSize) / 2] ^= 0x10; }},
      {"bit flip in checksum", [](std::string& s) { s[41] ^= 0x01; }},
      {"wrong magic", [](std::string& s) { s[0] = 'X'; }},
      {"wrong version", [](std::string& s) { s[8] = static_cast<char>(KernelCache::kFormatVersion + 1); }},
      {"wrong key", [](std::string& s) { s[16] ^= 0x40; }},
      {"trailing garbage", [](std::string& s) { s += "garbage"; }},
      {"intact file holding a non-object", [](std::string& s) {  // passes every check; LLVM refuses it
         Hash128 k;
         std::memcpy(&k.lo, s.data() + 16, 8);
         std::memcpy(&k.hi, s.data() + 24, 8);
         s = KernelCache::encode(k, "this is not an ELF object");
       },
       true},
  };
  for (const Damage& d : damages) {
    BOOST_TEST_CONTEXT(d.name) {
      std::string dir = fresh_dir("damage");
      Probe first = populate(dir);
      std::vector<fs::path> files = cache_files(dir);
      // Damage every other file; the rest must still load.
      int64_t damaged = 0;
      for (size_t i = 0; i < files.size(); i += 2, ++damaged) {
        std::string s = read_all(files[i]);
        d.apply(s);
        write_all(files[i], s);
      }
      Probe second = run_probe(dir_env(dir));
      BOOST_CHECK_EQUAL(second["ok"], 1);
      BOOST_CHECK_EQUAL(second.checksum(), first.checksum());
      BOOST_CHECK_EQUAL(second["disk_rejects"], damaged);
      BOOST_CHECK_EQUAL(second["compiled"], damaged);
      BOOST_CHECK_EQUAL(second["disk_loads"], first["compiled"] - (d.passes_checks ? 0 : damaged));
      BOOST_CHECK_EQUAL(second["disk_stores"], damaged);
      Probe third = run_probe(dir_env(dir));  // rebuilt files are good again
      BOOST_CHECK_EQUAL(third["ok"], 1);
      BOOST_CHECK_EQUAL(third["compiled"], 0);
      BOOST_CHECK_EQUAL(third["disk_rejects"], 0);
      BOOST_CHECK_EQUAL(third.checksum(), first.checksum());
    }
  }
}

BOOST_AUTO_TEST_CASE(processes_filling_one_directory_at_once_all_get_correct_results) {
  std::string dir = fresh_dir("concurrent");
  Probe reference = run_probe("LT_CACHE=0");
  BOOST_REQUIRE_EQUAL(reference["ok"], 1);
  const int n = 4;
  std::string base = root() / "concurrent";
  std::string cmd = "(";
  for (int i = 0; i < n; ++i) {
    std::string out = base + "-" + std::to_string(i);
    cmd += probe_command(dir_env(dir), 0, out + ".out", out + ".err") + " & ";
  }
  cmd += "wait)";
  BOOST_REQUIRE_EQUAL(std::system(cmd.c_str()), 0);
  for (int i = 0; i < n; ++i) {
    std::string out = base + "-" + std::to_string(i);
    Probe p = parse_probe(read_all(out + ".out"), read_all(out + ".err"));
    BOOST_CHECK_EQUAL(p["ok"], 1);
    BOOST_CHECK_EQUAL(p["disk_rejects"], 0);
    BOOST_CHECK_EQUAL(p["disk_write_errors"], 0);
    BOOST_CHECK_EQUAL(p["compiled"] + p["disk_loads"], reference["compiled"]);
    BOOST_CHECK_EQUAL(p.checksum(), reference.checksum());
  }
  BOOST_CHECK_EQUAL(temp_files(dir), 0u);
  Probe after = run_probe(dir_env(dir));
  BOOST_CHECK_EQUAL(after["compiled"], 0);
  BOOST_CHECK_EQUAL(after["disk_rejects"], 0);
  BOOST_CHECK_EQUAL(after.checksum(), reference.checksum());
}

BOOST_AUTO_TEST_CASE(an_unwritable_directory_is_not_fatal) {
  // Tests run as root, where permission bits do not stop writes: a directory
  // under a regular file can be neither created nor written by anyone.
  std::string dir = fresh_dir("unwritable");
  write_all(fs::path(dir) / "file", "not a directory");
  std::string bad = dir + "/file/sub";
  Probe reference = run_probe("LT_CACHE=0");
  for (int round = 0; round < 2; ++round) {
    std::string err = fs::path(dir) / "debug.err";
    std::string out = fs::path(dir) / "debug.out";
    int rc = std::system(probe_command("LT_DEBUG=1 " + dir_env(bad), 0, out, err).c_str());
    BOOST_CHECK_EQUAL(rc, 0);
    Probe p = parse_probe(read_all(out), read_all(err));
    BOOST_CHECK_EQUAL(p["ok"], 1);
    BOOST_CHECK_EQUAL(p.checksum(), reference.checksum());
    BOOST_CHECK_EQUAL(p["compiled"], reference["compiled"]);
    BOOST_CHECK_EQUAL(p["disk_stores"], 0);
    BOOST_CHECK_EQUAL(p["disk_write_errors"], p["compiled"]);
    // Logged once under LT_DEBUG, not once per kernel.
    std::string log = p.err;
    size_t count = 0;
    for (size_t at = log.find("cannot write"); at != std::string::npos; at = log.find("cannot write", at + 1)) ++count;
    BOOST_CHECK_EQUAL(count, 1u);
  }
}

BOOST_AUTO_TEST_CASE(failing_writes_are_not_fatal_and_leave_no_files) {
  std::string dir = fresh_dir("full");
  Probe reference = run_probe("LT_CACHE=0");
  Probe p = run_probe("LT_TEST_FAIL_CACHE_WRITE=1 " + dir_env(dir));
  BOOST_CHECK_EQUAL(p["ok"], 1);
  BOOST_CHECK_EQUAL(p.checksum(), reference.checksum());
  BOOST_CHECK_EQUAL(p["disk_stores"], 0);
  BOOST_CHECK_EQUAL(p["disk_write_errors"], p["compiled"]);
  BOOST_CHECK(cache_files(dir).empty());
  BOOST_CHECK_EQUAL(temp_files(dir), 0u);
}

/// Runs cache_probe in a shell that first runs `setup` (ulimit, trap), under `wrapper` (timeout).
Probe run_probe_after(const std::string& setup, const std::string& env, const std::string& name,
                      const std::string& wrapper = "") {
  std::string base = root() / name;
  std::string out = base + ".out", err = base + ".err";
  std::string cmd = "(" + setup + "; " + wrapper + " " + probe_command(env, 0, out, err) + ")";
  int rc = std::system(cmd.c_str());
  Probe p = parse_probe(read_all(out), read_all(err));
  BOOST_CHECK_MESSAGE(rc == 0, "cache_probe failed (" << rc << "): " << read_all(out) << p.err);
  return p;
}

/// What a directory that filled up mid-run must look like afterwards: correct
/// results, every kernel either stored or counted as a failed write, no temp
/// file left, and every file that was published whole (a later run loads
/// them all and rejects none).
void check_after_filling_up(const std::string& dir, const Probe& p, const Probe& reference) {
  BOOST_CHECK_EQUAL(p["ok"], 1);
  BOOST_CHECK_EQUAL(p.checksum(), reference.checksum());
  BOOST_CHECK_GT(p["disk_write_errors"], 0);
  BOOST_CHECK_EQUAL(p["disk_stores"] + p["disk_write_errors"], p["compiled"]);
  BOOST_CHECK_EQUAL(temp_files(dir), 0u);
  BOOST_CHECK_EQUAL(cache_files(dir).size(), static_cast<size_t>(p["disk_stores"]));
  // What was published is whole: a new process loads every file and rejects none.
  Probe again = run_probe(dir_env(dir));
  BOOST_CHECK_EQUAL(again["ok"], 1);
  BOOST_CHECK_EQUAL(again["disk_rejects"], 0);
  BOOST_CHECK_EQUAL(again["disk_loads"], p["disk_stores"]);
  BOOST_CHECK_EQUAL(again.checksum(), reference.checksum());
}

BOOST_AUTO_TEST_CASE(a_real_write_failure_midway_through_a_file_publishes_nothing_partial) {
  // RLIMIT_FSIZE makes write() itself fail (EFBIG) part way through every file
  // larger than the limit: the kernel's own error path, not the test hook.
  // SIGXFSZ is ignored (inherited through exec) so the write returns an error.
  std::string dir = fresh_dir("fsize"), reference_dir = fresh_dir("fsize-reference");
  Probe reference = populate(reference_dir);
  std::vector<uintmax_t> sizes;
  for (const fs::path& f : cache_files(reference_dir)) sizes.push_back(fs::file_size(f));
  std::sort(sizes.begin(), sizes.end());
  BOOST_REQUIRE_GE(sizes.size(), 2u);
  // A limit between the smallest and the largest file (ulimit -f counts 512-byte blocks in dash, 1024 in bash).
  uintmax_t limit_bytes = sizes.back() - 1;
  std::string limit = std::to_string(std::max<uintmax_t>(1, limit_bytes / 1024));
  Probe p = run_probe_after("trap '' XFSZ; ulimit -f " + limit, dir_env(dir), "fsize");
  BOOST_TEST_MESSAGE("file sizes " << sizes.front() << ".." << sizes.back() << " bytes; ulimit -f " << limit
                                   << ": stored " << p["disk_stores"] << ", failed " << p["disk_write_errors"]);
  check_after_filling_up(dir, p, reference);
}

BOOST_AUTO_TEST_CASE(a_filesystem_that_fills_up_is_not_fatal) {
  // A real full disk: a 16 KiB tmpfs (root may mount one; elsewhere the case
  // is skipped, and the two cases around it cover the same code paths).
  std::string dir = fresh_dir("tmpfs"), reference_dir = fresh_dir("tmpfs-reference");
  if (std::system(("mount -t tmpfs -o size=16k lt-test-full '" + dir + "' 2>/dev/null").c_str()) != 0) {
    BOOST_TEST_MESSAGE("cannot mount a tmpfs here (not root, or no CAP_SYS_ADMIN): skipped");
    return;
  }
  struct Unmount {
    std::string dir;
    ~Unmount() { std::system(("umount '" + dir + "'").c_str()); }
  } unmount{dir};
  Probe reference = populate(reference_dir);
  uintmax_t total = 0;
  for (const fs::path& f : cache_files(reference_dir)) total += fs::file_size(f);
  BOOST_TEST_MESSAGE("one run writes " << total << " bytes into a 16 KiB filesystem");
  BOOST_REQUIRE_GT(total, 16u * 1024);  // else the filesystem would not fill up
  Probe p = run_probe(dir_env(dir));
  check_after_filling_up(dir, p, reference);
}

BOOST_AUTO_TEST_CASE(cache_names_taken_by_a_directory_a_fifo_or_a_device_are_rejected_without_blocking) {
  for (const std::string kind : {"directory", "fifo", "symlink to /dev/zero"}) {
    BOOST_TEST_CONTEXT(kind) {
      std::string dir = fresh_dir("not-a-file");
      Probe first = populate(dir);
      fs::path victim = cache_files(dir).front();
      fs::remove(victim);
      if (kind == "directory") fs::create_directory(victim);
      else if (kind == "fifo") BOOST_REQUIRE_EQUAL(::mkfifo(victim.c_str(), 0644), 0);
      else fs::create_symlink("/dev/zero", victim);
      // A reader that opened the FIFO blocking, or read /dev/zero to its end, would never return.
      Probe second = run_probe_after("true", dir_env(dir), "not-a-file", "timeout 120");
      BOOST_CHECK_EQUAL(second["ok"], 1);
      BOOST_CHECK_EQUAL(second.checksum(), first.checksum());
      BOOST_CHECK_EQUAL(second["disk_rejects"], 1);
      BOOST_CHECK_EQUAL(second["compiled"], 1);
      BOOST_CHECK_EQUAL(temp_files(dir), 0u);
      // A FIFO or a link is replaced by a good file; a directory cannot be, and stays a failed write.
      Probe third = run_probe(dir_env(dir));
      BOOST_CHECK_EQUAL(third.checksum(), first.checksum());
      BOOST_CHECK_EQUAL(third["compiled"], kind == "directory" ? 1 : 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_cache_directory_that_is_a_regular_file_is_not_fatal) {
  std::string dir = fresh_dir("dir-is-file");
  std::string file = dir + "/cache";
  write_all(file, "a file where the cache directory should be");
  Probe reference = run_probe("LT_CACHE=0");
  Probe p = run_probe(dir_env(file));
  BOOST_CHECK_EQUAL(p["ok"], 1);
  BOOST_CHECK_EQUAL(p.checksum(), reference.checksum());
  BOOST_CHECK_EQUAL(p["disk_stores"], 0);
  BOOST_CHECK_EQUAL(p["disk_write_errors"], p["compiled"]);
  BOOST_CHECK_EQUAL(read_all(file), "a file where the cache directory should be");
}

BOOST_AUTO_TEST_CASE(the_disk_cache_can_be_disabled) {
  std::string dir = fresh_dir("disabled");
  for (std::string env : {"LT_CACHE=0 " + dir_env(dir), "LT_CACHE=off " + dir_env(dir), std::string("LT_CACHE_DIR=")}) {
    BOOST_TEST_CONTEXT(env) {
      Probe p = run_probe(env);
      BOOST_CHECK_EQUAL(p["ok"], 1);
      BOOST_CHECK_EQUAL(p["disk_stores"], 0);
      BOOST_CHECK_EQUAL(p["disk_loads"], 0);
      BOOST_CHECK_EQUAL(p["disk_write_errors"], 0);
    }
  }
  BOOST_CHECK(cache_files(dir).empty());
}

BOOST_AUTO_TEST_CASE(a_tiny_size_cap_keeps_the_directory_under_it) {
  std::string dir = fresh_dir("cap"), reference_dir = fresh_dir("cap-reference");
  Probe reference = populate(reference_dir);
  uint64_t one_run = 0;
  for (const fs::path& f : cache_files(reference_dir)) one_run += fs::file_size(f);
  uint64_t cap = one_run / 2;
  for (int variant = 0; variant < 4; ++variant) {
    Probe p = run_probe("LT_CACHE_MAX_BYTES=" + std::to_string(cap) + " " + dir_env(dir), variant);
    BOOST_CHECK_EQUAL(p["ok"], 1);
    BOOST_CHECK_EQUAL(p["disk_write_errors"], 0);
    BOOST_CHECK_LE(KernelCache({dir, cap}).disk_bytes(), cap);
  }
  Probe again = run_probe("LT_CACHE_MAX_BYTES=" + std::to_string(cap) + " " + dir_env(dir), 0);
  BOOST_CHECK_EQUAL(again["ok"], 1);
  BOOST_CHECK_EQUAL(again.checksum(), reference.checksum());
  // Cap 0: every file is evicted right after it is written, and nothing breaks.
  Probe zero = run_probe("LT_CACHE_MAX_BYTES=0 " + dir_env(dir), 5);
  BOOST_CHECK_EQUAL(zero["ok"], 1);
  BOOST_CHECK(cache_files(dir).empty());
}

BOOST_AUTO_TEST_CASE(store_and_load_round_trip_in_process) {
  std::string dir = fresh_dir("roundtrip");
  KernelCache c({dir, 1 << 20});
  BOOST_CHECK(!c.load(key(1)));  // absent: a miss, not a reject
  int64_t rejects = counter_value("disk_rejects"), loads = counter_value("disk_loads");
  BOOST_CHECK_EQUAL(counter_value("disk_rejects"), rejects);
  for (size_t n : {size_t(0), size_t(1), size_t(7), size_t(8), size_t(4097)}) {
    BOOST_REQUIRE(c.store(key(n), payload(n, n)));
    std::optional<std::string> got = c.load(key(n));
    BOOST_REQUIRE(got);
    BOOST_CHECK(*got == payload(n, n));
    BOOST_CHECK_EQUAL(fs::file_size(c.path_for(key(n))), KernelCache::kHeaderSize + n);
  }
  BOOST_CHECK_EQUAL(counter_value("disk_loads"), loads + 5);
  // A file moved to another key's name is rejected (key echo), and removed.
  fs::copy_file(c.path_for(key(7)), c.path_for(key(99)));
  BOOST_CHECK(!c.load(key(99)));
  BOOST_CHECK(!fs::exists(c.path_for(key(99))));
  BOOST_CHECK_EQUAL(counter_value("disk_rejects"), rejects + 1);
  // A file written by a different format version is rejected.
  write_all(c.path_for(key(5)), KernelCache::encode(key(5), payload(5, 5), KernelCache::kFormatVersion + 1));
  BOOST_CHECK(!c.load(key(5)));
  BOOST_CHECK_EQUAL(counter_value("disk_rejects"), rejects + 2);
  // Every single-bit flip of a small file is caught.
  std::string good = KernelCache::encode(key(8), payload(8, 8));
  for (size_t bit = 0; bit < good.size() * 8; ++bit) {
    std::string bad = good;
    bad[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    write_all(c.path_for(key(8)), bad);
    BOOST_CHECK_MESSAGE(!c.load(key(8)), "bit " << bit << " flipped was accepted");
  }
  BOOST_CHECK(!KernelCache({"", 1 << 20}).enabled());
  BOOST_CHECK(!KernelCache({"", 1 << 20}).store(key(1), "x"));
}

BOOST_AUTO_TEST_CASE(eviction_removes_the_least_recently_used_files) {
  std::string dir = fresh_dir("lru");
  const size_t n = 1000, file = KernelCache::kHeaderSize + n;
  KernelCache c({dir, 3 * file + file / 2});  // room for three files
  for (uint64_t i = 0; i < 3; ++i) {
    BOOST_REQUIRE(c.store(key(i), payload(i, n)));
    pause_for_mtime();
  }
  BOOST_REQUIRE(c.load(key(0)));  // 0 is now the most recently used; 1 the least
  pause_for_mtime();
  int64_t evictions = counter_value("disk_evictions");
  BOOST_REQUIRE(c.store(key(3), payload(3, n)));
  BOOST_CHECK_EQUAL(counter_value("disk_evictions"), evictions + 1);
  BOOST_CHECK(fs::exists(c.path_for(key(0))));
  BOOST_CHECK(!fs::exists(c.path_for(key(1))));
  BOOST_CHECK(fs::exists(c.path_for(key(2))));
  BOOST_CHECK(fs::exists(c.path_for(key(3))));
  BOOST_CHECK_LE(c.disk_bytes(), c.config().max_bytes);
  // A payload larger than the cap is written and then evicted: no error, no file left over the cap.
  BOOST_CHECK(c.store(key(4), payload(4, 4 * file)));
  BOOST_CHECK_LE(c.disk_bytes(), c.config().max_bytes);
}

BOOST_AUTO_TEST_CASE(eviction_survives_files_deleted_by_others_meanwhile) {
  std::string dir = fresh_dir("evict-race");
  const size_t n = 512;
  KernelCacheConfig config{dir, 8 * (KernelCache::kHeaderSize + n)};
  std::atomic<bool> stop{false};
  std::thread deleter([&] {  // another "process" deleting files and the whole directory
    while (!stop) {
      std::error_code ec;
      fs::directory_iterator it(dir, ec), end;
      while (!ec && it != end) {
        fs::remove(it->path(), ec);
        it.increment(ec);
      }
      if (std::rand() % 8 == 0) fs::remove_all(dir, ec);
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < 3; ++t)
    writers.emplace_back([&, t] {
      KernelCache c(config);
      for (uint64_t i = 0; i < 200; ++i) {
        c.store(key(t * 1000 + i), payload(i, n));  // may fail when the directory vanishes: fine
        c.load(key(t * 1000 + i / 2));
        if (i % 16 == 0) c.evict();
      }
    });
  for (auto& w : writers) w.join();
  stop = true;
  deleter.join();
  KernelCache c(config);
  BOOST_CHECK(c.store(key(7), payload(7, n)));
  BOOST_CHECK(c.load(key(7)));
  BOOST_CHECK_LE(c.disk_bytes(), config.max_bytes);
}

BOOST_AUTO_TEST_CASE(a_kernel_that_fails_to_compile_raises_a_clear_error_and_the_process_stays_usable) {
  // Compiled before its first launch (the interpreter would take this small softmax).
  bool interpreter = cpu_interpreter();
  cpu_set_interpreter(false);
  struct Restore {
    bool on;
    ~Restore() { cpu_set_interpreter(on); }
  } restore_interpreter{interpreter};
  std::string dir = fresh_dir("compile-fault"), dumps = fresh_dir("compile-fault-dumps");
  set_kernel_cache_config({dir, 1 << 30});
  ::setenv("LT_DUMP_DIR", dumps.c_str(), 1);
  ::setenv("LT_TEST_FAIL_COMPILE", "1", 1);
  NodePtr x = random_input(DType::Float32, {13, 17}, -2, 2, 77);
  std::vector<NodePtr> roots = {ops::softmax(ops::mul(x, ops::scalar(3.0, DType::Float32)), 1)};
  CapturedTrace ct = capture_trace(roots);
  std::string message;
  try {
    run_cpu(ct.trace);
    BOOST_ERROR("an injected compile failure did not raise");
  } catch (const Error& e) {
    message = e.what();
    BOOST_CHECK(e.kind() == ErrorKind::Runtime);
  }
  ::unsetenv("LT_TEST_FAIL_COMPILE");
  ::unsetenv("LT_DUMP_DIR");
  BOOST_CHECK(cache_files(dir).empty());  // nothing half-built was cached
  std::shared_ptr<const Plan> plan = cpu_plan_for(ct.trace);  // compiles it now
  const Kernel& first = plan->kernels.at(0);
  BOOST_TEST_MESSAGE(message);
  BOOST_CHECK_NE(message.find("failed to compile kernel " + first.name), std::string::npos);
  BOOST_CHECK_NE(message.find("injected compile failure"), std::string::npos);
  fs::path dumped = fs::path(dumps) / ("lt-failed-kernel-" + hash_hex(first.hash()) + ".txt");
  BOOST_CHECK_NE(message.find(dumped.string()), std::string::npos);
  BOOST_REQUIRE(fs::exists(dumped));
  BOOST_CHECK_NE(read_all(dumped).find(print_kernel(first)), std::string::npos);
  // The same program and another one now compile and run correctly.
  check_against_reference(roots);
  check_against_reference({ops::sum(ops::exp(x), {0})});
  BOOST_CHECK(!cache_files(dir).empty());
  set_kernel_cache_config(KernelCacheConfig::from_env());
}
