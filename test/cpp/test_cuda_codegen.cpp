// The CUDA code generator and NVRTC, without a GPU: every kernel the corpus
// and the fuzzer's fixed-seed programs schedule compiles to PTX (accepted by
// ptxas for sm_90) and to an sm_90 cubin; compiler failures raise with the
// source on disk.
#define BOOST_TEST_MODULE cuda_codegen
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <fstream>
#include <future>
#include <thread>

#include "cuda_test_util.h"
#include "jit/cuda/codegen.h"
#include "jit/cuda/nvrtc.h"
#include "tools/fuzz/fuzz.h"

using namespace lt;
using namespace lt::test;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

Kernel only_kernel(const std::vector<NodePtr>& roots, size_t expect_kernels = 1) {
  CapturedTrace ct = capture_trace(roots);
  Plan plan = schedule(ct.trace, fusion_policy(""));
  BOOST_REQUIRE_EQUAL(plan.kernels.size(), expect_kernels);
  return plan.kernels.back();
}

}  // namespace

BOOST_AUTO_TEST_CASE(nvrtc_supports_sm_90) {
  std::vector<int> archs = cuda::nvrtc_supported_archs();
  BOOST_CHECK(std::find(archs.begin(), archs.end(), 90) != archs.end());
  BOOST_CHECK(contains(cuda::nvrtc_version(), "nvrtc-"));
}

namespace {

// NVRTC costs ~0.3 s per program whatever its size, so kernels compile in
// batches (as the backend compiles a trace's kernels); a failing batch is
// recompiled kernel by kernel to name the culprit. Every batch's PTX also goes
// through ptxas -arch=sm_90 (when the toolkit has it). Batches compile on
// worker threads (NVRTC is thread-safe across programs); their findings are
// asserted here, on the test's thread.
struct BatchResult {
  std::vector<std::string> errors;
  double nvrtc_ms = 0, ptxas_ms = 0;
};

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

BatchResult compile_batch(const std::vector<const cuda::KernelSource*>& part, const std::string& name,
                          const std::string& ptxas, const std::filesystem::path& dir) {
  BatchResult r;
  try {
    auto t1 = std::chrono::steady_clock::now();
    cuda::CompiledModule m = cuda::nvrtc_compile(cuda::cuda_translation_unit(part), name, "sm_90");
    r.nvrtc_ms = ms_since(t1);
    if (m.image.size() <= 4 || m.image.compare(1, 3, "ELF") != 0) r.errors.push_back(name + ": cubin is not ELF");
    for (const cuda::KernelSource* s : part)
      if (!contains(m.ptx, ".entry " + s->entry)) r.errors.push_back(name + ": PTX lacks " + s->entry);
    if (!ptxas.empty()) {
      std::string path = (dir / (name + ".ptx")).string();
      std::ofstream(path) << m.ptx;
      std::string cmd = ptxas + " -arch=sm_90 -o /dev/null " + path + " 2>&1";
      auto t2 = std::chrono::steady_clock::now();
      if (std::system(cmd.c_str()) != 0) r.errors.push_back("ptxas -arch=sm_90 rejected " + path);
      else std::filesystem::remove(path);
      r.ptxas_ms = ms_since(t2);
    }
  } catch (const Error&) {
    for (const cuda::KernelSource* s : part) {
      try {
        cuda::nvrtc_compile(s->source, s->entry, "sm_90");
      } catch (const Error& e) {
        r.errors.push_back(e.what());
      }
    }
    if (r.errors.empty()) r.errors.push_back(name + ": the batch failed but each kernel alone compiles");
  }
  return r;
}

double compile_every_kernel(const std::vector<Kernel>& kernels, const std::string& label, size_t batch_size) {
  std::string ptxas = find_ptxas();
  if (ptxas.empty()) std::cerr << "note: ptxas not found; PTX is checked by NVRTC's own sm_90 compile only\n";
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("lt-cuda-ptx-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  int kinds[3] = {0, 0, 0};
  std::vector<cuda::KernelSource> sources;
  for (const Kernel& k : kernels) {
    ++kinds[static_cast<int>(k.kind)];
    try {
      sources.push_back(cuda::generate_cuda_kernel(k));
    } catch (const Error& e) {
      BOOST_ERROR(k.name << ": codegen: " << e.what());
    }
  }
  BOOST_CHECK_GT(kinds[static_cast<int>(KernelKind::Elementwise)], 0);
  BOOST_CHECK_GT(kinds[static_cast<int>(KernelKind::Rows)], 0);
  BOOST_CHECK_GT(kinds[static_cast<int>(KernelKind::MatMul)], 0);
  auto t0 = std::chrono::steady_clock::now();
  const size_t workers = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 16);
  double nvrtc_ms = 0, ptxas_ms = 0;
  std::deque<std::pair<std::string, std::future<BatchResult>>> running;
  auto finish_one = [&] {
    BatchResult r = running.front().second.get();
    BOOST_CHECK_MESSAGE(r.errors.empty(), running.front().first << ": " << r.errors.size() << " errors");
    for (const std::string& e : r.errors) BOOST_ERROR(e);
    nvrtc_ms += r.nvrtc_ms;
    ptxas_ms += r.ptxas_ms;
    running.pop_front();
  };
  int batches = 0;
  for (size_t first = 0; first < sources.size(); first += batch_size) {
    std::vector<const cuda::KernelSource*> part;
    for (size_t i = first; i < std::min(sources.size(), first + batch_size); ++i) part.push_back(&sources[i]);
    std::string name = "lt_" + label + "_batch_" + std::to_string(batches++);
    if (running.size() == workers) finish_one();
    running.emplace_back(name, std::async(std::launch::async, compile_batch, part, name, ptxas, dir));
  }
  while (!running.empty()) finish_one();
  std::filesystem::remove_all(dir);
  double ms = ms_since(t0);
  std::cerr << label << ": " << kernels.size() << " kernels (" << kinds[0] << " elementwise, " << kinds[1] << " rows, "
            << kinds[2] << " matmul) in " << batches << " NVRTC programs" << (ptxas.empty() ? "" : " + ptxas") << " on "
            << workers << " threads: " << ms << " ms (NVRTC " << nvrtc_ms << " ms, ptxas " << ptxas_ms << " ms)\n";
  return ms;
}

bool accumulates_narrow(const Kernel& k) {
  for (const KOp& o : k.ops)
    if (o.code == KOpCode::AccumStore && (is_low_precision_float(o.dtype) || is_narrow_int(o.dtype))) return true;
  return false;
}

/// Every distinct kernel the fuzzer's fixed-seed programs (test_fuzz's seeds)
/// and its saved failures (test/data/fuzz) schedule under each fuzz policy.
std::vector<Kernel> fuzz_kernels(int64_t* programs) {
  std::map<std::string, Kernel> unique;
  auto add = [&](const Trace& trace, const std::string& name) {
    for (const std::string& policy : fuzz::fuzz_policies()) {
      Plan plan;
      try {
        plan = schedule(trace, fusion_policy(policy));
      } catch (const Error&) {
        continue;  // a program every backend rejects (e.g. amax over zero elements), as test_fuzz checks
      }
      for (Kernel& k : plan.kernels) {
        if (accumulates_narrow(k)) continue;  // refused (scatter_add_into_narrow_dtypes_is_refused_clearly)
        k.name = name + "_" + policy + "/" + k.name;
        unique.emplace(hash_hex(k.hash()), std::move(k));
      }
    }
  };
  *programs = fuzz::fixed_seed_programs();
  for (int64_t seed = 1; seed <= *programs; ++seed)
    add(capture_trace(fuzz::generate(static_cast<uint64_t>(seed)).roots).trace, "seed" + std::to_string(seed));
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(LT_SOURCE_DIR) / "test/data/fuzz"))
    if (entry.path().extension() == ".trace") add(fuzz::read_case(entry.path().string()), entry.path().stem().string());
  std::vector<Kernel> out;
  for (auto& [h, k] : unique) out.push_back(std::move(k));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_corpus_kernel_compiles_to_ptx_and_sm90_cubin) {
  std::vector<Kernel> kernels = corpus_kernels();
  BOOST_CHECK_GT(kernels.size(), 100u);
  compile_every_kernel(kernels, "corpus", 40);
}

BOOST_AUTO_TEST_CASE(every_fixed_seed_fuzz_kernel_compiles_to_ptx_and_sm90_cubin) {
  int64_t programs = 0;
  std::vector<Kernel> kernels = fuzz_kernels(&programs);
  BOOST_CHECK_GT(kernels.size(), static_cast<size_t>(programs));
  compile_every_kernel(kernels, "fuzz", 60);
}

BOOST_AUTO_TEST_CASE(nvrtc_failure_raises_with_the_source_written_to_a_file) {
  try {
    cuda::nvrtc_compile("extern \"C\" __global__ void broken() { this is not cuda; }", "lt_broken_kernel", "sm_90");
    BOOST_FAIL("a broken kernel compiled");
  } catch (const Error& e) {
    std::string m = e.what();
    BOOST_CHECK_MESSAGE(contains(m, "NVRTC failed") && contains(m, "lt_broken_kernel.cu"), m);
    size_t at = m.find("source written to ");
    BOOST_REQUIRE(at != std::string::npos);
    std::string path = m.substr(at + 18, m.find('\n', at) - at - 18);
    BOOST_CHECK_MESSAGE(std::filesystem::exists(path), path);
  }
}

BOOST_AUTO_TEST_CASE(narrow_dtypes_load_store_their_bits_and_compute_wide) {
  struct Row {
    DType d;
    const char *storage, *load, *round;
  };
  for (const Row& r : {Row{DType::Float16, "unsigned short*", "lt_f16_to_float(", "lt_round_f16("},
                       Row{DType::BFloat16, "unsigned short*", "lt_bf16_to_float(", "lt_round_bf16("},
                       Row{DType::Int8, "signed char*", "((int)b", "((int)(signed char)("},
                       Row{DType::UInt8, "unsigned char*", "((int)b", "((int)(unsigned char)("},
                       Row{DType::Int16, "short*", "((int)b", "((int)(short)("}}) {
    BOOST_TEST_CONTEXT(dtype_name(r.d)) {
      NodePtr x = corpus_input(r.d, {1000});
      cuda::KernelSource s = cuda::generate_cuda_kernel(only_kernel({ops::mul(ops::add(x, x), x)}));
      BOOST_CHECK(contains(s.source, r.storage));
      BOOST_CHECK(contains(s.source, r.load));
      BOOST_CHECK(contains(s.source, r.round));
      cuda::CompiledModule m = cuda::nvrtc_compile(s.source, s.entry, "sm_90");  // NVRTC and ptxas accept it
      BOOST_CHECK(!m.image.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(scatter_add_into_narrow_dtypes_is_refused_clearly) {
  NodePtr x = corpus_input(DType::Float16, {64});
  NodePtr idx = corpus_input(DType::Int64, {64}, 0, 63);
  Plan plan = schedule(capture_trace({ops::index_add(x, 0, idx, x)}).trace, fusion_policy(""));
  bool refused = false;
  for (const Kernel& k : plan.kernels) {
    if (!accumulates_narrow(k)) continue;
    try {
      cuda::generate_cuda_kernel(k);
    } catch (const Error& e) {
      refused = contains(e.what(), "scatter_add into f16 is not supported on CUDA");
    }
  }
  BOOST_CHECK(refused);
}

BOOST_AUTO_TEST_CASE(elementwise_kernels_are_grid_stride_loops) {
  NodePtr x = corpus_input(DType::Float32, {1000, 3});
  cuda::KernelSource s = cuda::generate_cuda_kernel(only_kernel({ops::exp(ops::permute(x, {1, 0}))}));
  BOOST_CHECK(contains(s.source, "i += (long long)gridDim.x * 256"));
  BOOST_CHECK(contains(s.source, "expf("));
  BOOST_CHECK_EQUAL(s.items, 3000);
}

BOOST_AUTO_TEST_CASE(softmax_is_one_rows_kernel_with_row_all_reduces) {
  NodePtr x = corpus_input(DType::Float32, {8, 1000});
  Kernel k = only_kernel({ops::softmax(x, -1)});
  BOOST_CHECK(k.kind == KernelKind::Rows);
  cuda::KernelSource s = cuda::generate_cuda_kernel(k);
  BOOST_CHECK(contains(s.source, "lt_allreduce<256>"));
  BOOST_CHECK(contains(s.source, "LtMax()") && contains(s.source, "LtSum()"));
  BOOST_CHECK_EQUAL(s.block, 256);
  BOOST_CHECK_EQUAL(s.items, 8);
}

BOOST_AUTO_TEST_CASE(rows_wider_than_a_warp_own_their_block) {
  NodePtr x = corpus_input(DType::Float32, {64, 40});
  cuda::KernelSource s = cuda::generate_cuda_kernel(only_kernel({ops::sum(x, {1})}));
  BOOST_CHECK(contains(s.source, "lt_allreduce<64>"));
  BOOST_CHECK_EQUAL(s.block, 64);
  BOOST_CHECK_EQUAL(s.items_per_block, 1);
}

BOOST_AUTO_TEST_CASE(short_rows_share_a_warp) {
  NodePtr x = corpus_input(DType::Float64, {4096, 5});
  cuda::KernelSource s = cuda::generate_cuda_kernel(only_kernel({ops::sum(x, {1})}));
  BOOST_CHECK(contains(s.source, "lt_allreduce<8>"));
  BOOST_CHECK_EQUAL(s.items_per_block, 16);
}

BOOST_AUTO_TEST_CASE(matmul_stages_operand_tiles_in_shared_memory) {
  NodePtr a = corpus_input(DType::Float32, {100, 70}), b = corpus_input(DType::Float32, {50, 70});
  CapturedTrace ct = capture_trace({ops::matmul(a, ops::transpose(b, 0, 1))});
  Plan plan = schedule(ct.trace, fusion_policy(""));
  const Kernel* mm = nullptr;
  for (const Kernel& k : plan.kernels)
    if (k.kind == KernelKind::MatMul) mm = &k;
  BOOST_REQUIRE(mm);
  cuda::KernelSource s = cuda::generate_cuda_kernel(*mm);
  BOOST_CHECK(contains(s.source, "__shared__ float As[16][64]"));
  BOOST_CHECK(contains(s.source, "fmaf("));
  BOOST_CHECK_EQUAL(s.items, 2 * 1);  // ceil(100/64) x ceil(50/64) tiles
}

BOOST_AUTO_TEST_CASE(bfloat16_and_float16_products_run_on_tensor_cores) {
  struct Row {
    DType dtype;        ///< both operands' (ops::matmul rejects mixed dtypes, as torch)
    const char* inner;  ///< the multiply-add the k loop issues
  };
  for (const Row& r : {Row{DType::BFloat16, "lt_mma_bf16("}, Row{DType::Float16, "lt_mma_f16("}, Row{DType::Float32, "fmaf("}}) {
    BOOST_TEST_CONTEXT(dtype_name(r.dtype)) {
      NodePtr a = corpus_input(r.dtype, {100, 70}), b = corpus_input(r.dtype, {70, 50});
      Plan plan = schedule(capture_trace({ops::matmul(a, b)}).trace, fusion_policy(""));
      const Kernel* mm = nullptr;
      for (const Kernel& k : plan.kernels)
        if (k.kind == KernelKind::MatMul) mm = &k;
      BOOST_REQUIRE(mm);
      cuda::KernelSource s = cuda::generate_cuda_kernel(*mm);
      BOOST_CHECK(contains(s.source, r.inner));
      const bool mma = contains(r.inner, "mma");
      BOOST_CHECK_EQUAL(contains(s.source, "unsigned short As[64][40]"), mma);
      BOOST_CHECK_EQUAL(s.block, mma ? 128 : 256);
      cuda::CompiledModule m = cuda::nvrtc_compile(s.source, s.entry, "sm_90");
      BOOST_CHECK(!m.image.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(random_uses_the_reference_philox) {
  cuda::KernelSource s = cuda::generate_cuda_kernel(only_kernel({ops::rand({64}, 1, 0)}));
  BOOST_CHECK(contains(s.source, "0xD2511F53u") && contains(s.source, "0xCD9E8D57u"));
  BOOST_CHECK(contains(s.source, "0x9E3779B9u") && contains(s.source, "0xBB67AE85u"));
  BOOST_CHECK(contains(s.source, "lt_uniform_f32(lt_philox("));
}

BOOST_AUTO_TEST_CASE(gather_checks_indices_into_the_error_slot) {
  NodePtr x = corpus_input(DType::Float32, {5, 6});
  NodePtr idx = corpus_input(DType::Int64, {5, 3}, 0, 6, 2);
  cuda::KernelSource s = cuda::generate_cuda_kernel(only_kernel({ops::gather(x, 1, idx)}));
  BOOST_CHECK(contains(s.source, "lt_check_index("));
  BOOST_CHECK(contains(s.source, "LtError* __restrict__ lt_err"));
}
