// jit/cpu/compiler.cpp — optimisation, object emission, ORC loading and launch.
//
// Compile time is performance: each kernel gets its own LLVMContext/Module, a
// lean hand-built pipeline (inline the body, SROA, EarlyCSE, InstCombine,
// SimplifyCFG, LoopRotate+LICM, IndVarSimplify, LoopVectorize,
// AlignmentFromAssumptions (for streaming stores), cleanup: about
// half the stock O2 pipeline's time for the same loops; LT_JIT_FULL_O2=1 runs
// O2 instead) and codegen at -O2 for the host CPU. Objects are produced as
// bytes first (so cache/ can store them) and then linked into one
// process-wide LLJIT whose main dylib resolves libm/libc from the process.
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/counters.h"
#include "ir/error.h"
#include "jit/cpu/codegen.h"
#include "jit/cpu/jit.h"
#include "jit/cpu/matmul.h"
#include "jit/cpu/random.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/AlignmentFromAssumptions.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/IndVarSimplify.h"
#include "llvm/Transforms/Scalar/LICM.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/LoopRotation.h"
#include "llvm/Transforms/Scalar/LoopUnrollPass.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Vectorize/LoopVectorize.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"
#include "oneapi/tbb/task_arena.h"

namespace lt::cpu {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string llvm_error(llvm::Error e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  return s;
}

// Linux grants a process AMX's tile data state only on request
// (ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA); tile instructions fault without it.
bool request_amx_tile_state() {
#if defined(__linux__) && defined(__x86_64__)
  constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
  return false;
#endif
}

struct Jit {
  std::mutex mu;  // guards `loaded` and `pinned`
  // For the module's data layout, triple, CPU and features only (read-only):
  // optimisation and emission use one TargetMachine per thread (thread_tm()),
  // since a TargetMachine is not safe to share between compiling threads.
  std::unique_ptr<llvm::TargetMachine> tm;
  std::optional<llvm::orc::JITTargetMachineBuilder> builder;
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  std::string target;
  int vector_bits = 128;        // widest vector register of the target
  bool avx512_math = false;     // math.cpp's AVX-512 forms (LT_JIT_AVX512_MATH=0: off)
  bool fold_row_tails = false;  // codegen.cpp's masked row remainders (LT_JIT_FOLD_ROW_TAILS=0: off)
  bool column_reduce = true;    // interchanged column reductions (LT_JIT_COLUMN_REDUCE=0: off)
  Bf16MatMul bf16_matmul = Bf16MatMul::Widen;  // matmul.cpp's bfloat16 path (LT_MM_BF16)
  // One slot per loaded object, by entry symbol. `handle` is the object's
  // owner (KernelEntry::keep); whoever erases a slot removes its tracker.
  struct Slot {
    std::weak_ptr<const void> handle;
    llvm::orc::ResourceTrackerSP tracker;
    KernelEntry entry;  // without `keep`
  };
  absl::flat_hash_map<std::string, Slot> loaded;
  std::vector<std::shared_ptr<const void>> pinned;  // load_kernel_object(): never unloaded
  std::mutex report_mu;       // guards session_error (ORC may report from any thread)
  std::string session_error;  // the last error ORC reported (e.g. "Cannot allocate memory"), for our message

  Jit() {
    // Code generator defaults (docs/cpu-jit.md, "Compile time"): no loop
    // strength reduction and no pre-RA machine scheduler. Together a third
    // of a kernel's compile instructions, and no slower kernels measured
    // (gelu_expr faster without the scheduler). LT_LLVM_ARGS adds options
    // for LLVM itself, as on an llc command line ("-time-passes",
    // "-enable-misched=true"), for studying the JIT; a default it names is
    // left to it. LLVM's options are process globals of libLLVM, parsed once
    // here, before any compile; lazytensor is the only JIT in its processes.
    {
      const char* env = std::getenv("LT_LLVM_ARGS");
      std::string user = env ? env : "";
      std::vector<const char*> argv = {"lazytensor"};
      for (const char* opt : {"-disable-lsr", "-enable-misched=false"}) {
        std::string name(opt + 1, std::strcspn(opt + 1, "="));
        if (user.find(name) == std::string::npos) argv.push_back(opt);
      }
      llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(), "", nullptr, "LT_LLVM_ARGS");
      if (!user.empty()) std::atexit([] { llvm::reportAndResetTimings(); });  // -time-passes: the codegen passes' report
    }
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) fail(ErrorKind::Runtime, "cpu jit: cannot detect host: ", llvm_error(jtmb.takeError()));
    jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
    // LT_JIT_CPU: generate code for that CPU (its own features, not the
    // host's), e.g. "haswell" to run the AVX2 paths on an AVX-512 host
    // (ctest does); it must be a subset of what the host runs.
    if (const char* cpu = std::getenv("LT_JIT_CPU"); cpu && *cpu) {
      jtmb->setCPU(cpu);
      jtmb->getFeatures() = llvm::SubtargetFeatures();
    }
    jtmb->setRelocationModel(llvm::Reloc::PIC_);
    auto tm_or = jtmb->createTargetMachine();
    if (!tm_or) fail(ErrorKind::Runtime, "cpu jit: ", llvm_error(tm_or.takeError()));
    tm = std::move(*tm_or);
    builder = *jtmb;
    const llvm::MCSubtargetInfo& sti = *tm->getMCSubtargetInfo();
    vector_bits = sti.checkFeatures("+avx512f") ? 512 : sti.checkFeatures("+avx") ? 256 : 128;
    auto switched_off = [](const char* name) {
      const char* v = std::getenv(name);
      return v && std::string(v) == "0";
    };
    avx512_math = vector_bits == 512 && !switched_off("LT_JIT_AVX512_MATH");
    fold_row_tails = vector_bits == 512 && !switched_off("LT_JIT_FOLD_ROW_TAILS");
    column_reduce = !switched_off("LT_JIT_COLUMN_REDUCE");
    // bfloat16 matmuls (docs/matmul.md "bfloat16"): AMX tiles where the
    // target has AMX-BF16 and the kernel grants this process the tile state,
    // else vdpbf16ps with AVX-512 BF16 (on the AMX hosts it issues at a
    // quarter of the FMA rate, half the FLOPs: slower than widening there),
    // else the operands widen to float32. LT_MM_BF16=amx, dp or 0 asks for
    // one (the tests run each); what the target lacks falls back as above.
    {
      const char* mode = std::getenv("LT_MM_BF16");
      const std::string m = mode ? mode : "";
      const bool dot = vector_bits == 512 && sti.checkFeatures("+avx512bf16");
      const bool amx = dot && sti.checkFeatures("+amx-bf16") && sti.checkFeatures("+amx-tile") && m != "0" &&
                       m != "dp" && request_amx_tile_state();
      bf16_matmul = amx ? Bf16MatMul::Amx : dot && m != "0" ? Bf16MatMul::Dot : Bf16MatMul::Widen;
    }
    // Kernels' code depends on all of it: part of every disk-cache key.
    target = cat(std::string(tm->getTargetCPU()), ";", std::string(tm->getTargetFeatureString()), ";llvm-",
                 LLVM_VERSION_STRING, avx512_math ? ";math=avx512" : "", fold_row_tails ? ";fold" : "",
                 column_reduce ? "" : ";rows-only",
                 bf16_matmul == Bf16MatMul::Amx   ? ";mm=amx"
                 : bf16_matmul == Bf16MatMul::Dot ? ";mm=bf16dp"
                                                  : "");
    auto j = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*jtmb).create();
    if (!j) fail(ErrorKind::Runtime, "cpu jit: ", llvm_error(j.takeError()));
    lljit = std::move(*j);
    // Keep ORC's asynchronous errors for the exception the failed load raises,
    // instead of ORC printing them to stderr on its own.
    lljit->getExecutionSession().setErrorReporter([this](llvm::Error e) {
      std::string msg = llvm_error(std::move(e));
      std::lock_guard<std::mutex> lock(report_mu);
      session_error = msg;
    });
    auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(lljit->getDataLayout().getGlobalPrefix());
    if (!gen) fail(ErrorKind::Runtime, "cpu jit: ", llvm_error(gen.takeError()));
    lljit->getMainJITDylib().addGenerator(std::move(*gen));
    // Precompiled functions kernels call (random.h), defined by address: the
    // process search above cannot see them when the library was dlopen'ed
    // RTLD_LOCAL (as Python loads extensions).
    llvm::orc::SymbolMap runtime;
    std::vector<std::pair<std::string, void*>> symbols = random_runtime_symbols();
    for (auto& sym : math_runtime_symbols()) symbols.push_back(sym);
    for (const auto& [name, address] : symbols)
      runtime[lljit->mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                               llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
    if (auto e = lljit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(runtime))))
      fail(ErrorKind::Runtime, "cpu jit: cannot define the runtime functions: ", llvm_error(std::move(e)));
  }
};

Jit& jit() {
  static Jit* j = new Jit();  // never destroyed: kernels may run during static destruction
  return *j;
}

// The code generator's optimisation level of a tier's objects (docs/cpu-jit.md,
// "Tiers"). Quick: -O0 (fast instruction selection and the fast register
// allocator, no machine-level optimisation). The IR pipeline is the same for
// both tiers, so the loops are vectorised alike and both tiers compute the
// same values, bit for bit.
llvm::CodeGenOptLevel codegen_level(Tier tier) {
  return tier == Tier::Quick ? llvm::CodeGenOptLevel::None : llvm::CodeGenOptLevel::Default;
}

// This thread's TargetMachine for a tier (same target and options as
// Jit::tm, the tier's code generator level), so that kernels compile on
// several threads at once (compile_in_parallel()).
llvm::TargetMachine& thread_tm(Tier tier = Tier::Full) {
  thread_local std::unique_ptr<llvm::TargetMachine> tms[2];
  std::unique_ptr<llvm::TargetMachine>& tm = tms[static_cast<int>(tier)];
  if (!tm) {
    llvm::orc::JITTargetMachineBuilder builder = *jit().builder;
    builder.setCodeGenOptLevel(codegen_level(tier));
    auto made = builder.createTargetMachine();
    if (!made) fail(ErrorKind::Runtime, "cpu jit: ", llvm_error(made.takeError()));
    tm = std::move(*made);
  }
  return *tm;
}

std::unique_ptr<llvm::Module> build_module(llvm::LLVMContext& ctx, const std::string& symbol,
                                           const std::function<void(llvm::Module&)>& gen, const char* what) {
  auto m = std::make_unique<llvm::Module>(symbol, ctx);
  Jit& j = jit();
  m->setDataLayout(j.tm->createDataLayout());
  m->setTargetTriple(j.tm->getTargetTriple().str());
  gen(*m);
  for (llvm::Function& f : *m) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", j.tm->getTargetCPU());
    f.addFnAttr("target-features", j.tm->getTargetFeatureString());
    f.addFnAttr("prefer-vector-width", "512");
  }
  std::string err;
  llvm::raw_string_ostream es(err);
  if (llvm::verifyModule(*m, &es)) {
    std::string ir;
    llvm::raw_string_ostream is(ir);
    m->print(is, nullptr);
    fail(ErrorKind::Runtime, "cpu jit: invalid IR for ", what, ": ", err, "\n", ir);
  }
  return m;
}

std::unique_ptr<llvm::Module> build_module(llvm::LLVMContext& ctx, const Kernel& kernel, const std::string& symbol,
                                           Tier tier = Tier::Full) {
  return build_module(
      ctx, symbol,
      [&](llvm::Module& m) {
        if (kernel.kind == KernelKind::MatMul)
          generate_matmul_kernel(kernel, m, symbol);
        else
          generate_kernel(kernel, m, symbol, tier == Tier::Quick);
      },
      print_kernel(kernel).c_str());
}

// Streaming-store kernels (codegen.cpp, "Streaming stores"): every vector
// store the pipeline proved aligned becomes non-temporal. Only their main
// loop has such stores (the peel is kept scalar, the vectoriser's remainder
// is scalar).
void mark_streaming_stores(llvm::Module& m) {
  if (!m.getNamedMetadata("lt.streaming_stores")) return;
  const llvm::DataLayout& dl = m.getDataLayout();
  llvm::MDNode* one = llvm::MDNode::get(
      m.getContext(), llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(m.getContext()), 1)));
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : bb) {
        auto* st = llvm::dyn_cast<llvm::StoreInst>(&i);
        if (!st || !st->getValueOperand()->getType()->isVectorTy()) continue;
        uint64_t bytes = dl.getTypeStoreSize(st->getValueOperand()->getType()).getFixedValue();
        if (bytes >= 16 && st->getAlign().value() >= std::min<uint64_t>(bytes, 32))
          st->setMetadata(llvm::LLVMContext::MD_nontemporal, one);
      }
}

// The math functions a full-tier kernel defines for itself (codegen.h,
// kLateInline) stay calls through the pipeline above, so that the loop
// vectoriser calls their vector variants; now they are inlined into the
// loops and the rest deleted.
void inline_late(llvm::Module& m, llvm::ModuleAnalysisManager& mam) {
  std::vector<llvm::Function*> late;
  for (llvm::Function& f : m)
    if (f.hasFnAttribute(kLateInline)) late.push_back(&f);
  if (late.empty()) return;
  for (llvm::Function* f : late) {
    f->removeFnAttr(llvm::Attribute::NoInline);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
  }
  mam.clear();  // attributes changed under the cached analyses
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::AlwaysInlinerPass());
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::InstCombinePass());
  fpm.addPass(llvm::SimplifyCFGPass());
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  mpm.run(m, mam);
  late.clear();  // the inliner may have deleted some: look again
  for (llvm::Function& f : m)
    if (f.hasFnAttribute(kLateInline) && f.use_empty()) late.push_back(&f);
  for (llvm::Function* f : late) f->eraseFromParent();
}

void optimize(llvm::Module& m) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;
  pto.LoopUnrolling = true;
  llvm::PassBuilder pb(&thread_tm(), pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  static const bool full = std::getenv("LT_JIT_FULL_O2") != nullptr;  // the stock O2 pipeline, for comparison
  if (!full) {
    // The lean pipeline: what these loop nests need and nothing else.
    llvm::ModulePassManager mpm;
    mpm.addPass(llvm::AlwaysInlinerPass());
    llvm::FunctionPassManager fpm;
    fpm.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
    fpm.addPass(llvm::EarlyCSEPass(true));
    fpm.addPass(llvm::InstCombinePass());
    fpm.addPass(llvm::SimplifyCFGPass());
    {
      llvm::LoopPassManager lpm;
      lpm.addPass(llvm::LoopRotatePass());
      lpm.addPass(llvm::LICMPass(llvm::LICMOptions()));
      fpm.addPass(llvm::createFunctionToLoopPassAdaptor(std::move(lpm), /*UseMemorySSA=*/true));
    }
    fpm.addPass(llvm::InstCombinePass());
    {
      llvm::LoopPassManager lpm;
      lpm.addPass(llvm::IndVarSimplifyPass());
      fpm.addPass(llvm::createFunctionToLoopPassAdaptor(std::move(lpm), false));
    }
    fpm.addPass(llvm::LoopVectorizePass(llvm::LoopVectorizeOptions(false, false)));
    if (m.getNamedMetadata("lt.row_lanes")) {
      // Rows reductions' lanes (codegen.cpp gen_rows): a vectorised chunk
      // loop has a few iterations; unrolled, its accumulators' array is
      // indexed by constants (once InstCombine folds the unrolled indices)
      // and SROA keeps it in registers.
      fpm.addPass(llvm::LoopUnrollPass(llvm::LoopUnrollOptions(2).setPartial(false).setRuntime(false).setUpperBound(false)));
      fpm.addPass(llvm::InstCombinePass());
      fpm.addPass(llvm::SROAPass(llvm::SROAOptions::PreserveCFG));
      fpm.addPass(llvm::InstCombinePass());
    }
    fpm.addPass(llvm::AlignmentFromAssumptionsPass());
    fpm.addPass(llvm::InstCombinePass());
    fpm.addPass(llvm::SimplifyCFGPass(llvm::SimplifyCFGOptions().hoistCommonInsts(true).sinkCommonInsts(true)));
    mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
    mpm.run(m, mam);
  } else {
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
    mpm.run(m, mam);
  }
  inline_late(m, mam);
  mark_streaming_stores(m);
}

}  // namespace

const std::string& target_id() { return jit().target; }

bool avx512_math() { return jit().avx512_math; }

bool fold_row_tails() { return jit().fold_row_tails; }

int target_vector_bits() { return jit().vector_bits; }

Bf16MatMul bf16_matmul() { return jit().bf16_matmul; }

std::string kernel_symbol(const Kernel& kernel, Tier tier) {
  return cat("lt_k_", hash_hex(kernel.hash()), tier == Tier::Quick && kernel_has_quick_tier(kernel) ? "_q" : "");
}

std::vector<std::string> kernel_math_functions(const Kernel& kernel) {
  std::vector<std::string> names;
  if (kernel.kind == KernelKind::MatMul) return names;
  for (const KOp& o : kernel.ops) {
    // Float16 and BFloat16 compute in float32 (codegen.cpp), so they call the float32 functions.
    if (o.code != KOpCode::Compute || !is_floating(o.dtype)) continue;
    // Sigmoid is 1 / (1 + exp(-x)) over the exp math function (codegen.cpp).
    std::string name = math_function_name(o.op == Op::Sigmoid ? Op::Exp : o.op, o.dtype == DType::Float64);
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

bool kernel_has_quick_tier(const Kernel&) { return true; }

namespace {
std::mutex math_mu;
absl::flat_hash_map<std::string, bool>& math_loaded() {
  static auto* loaded = new absl::flat_hash_map<std::string, bool>();
  return *loaded;
}
}  // namespace

void load_math_function(const ObjectCode& object) {
  std::lock_guard<std::mutex> lock(math_mu);
  if (math_loaded().contains(object.symbol)) return;
  load_kernel_object(object);  // pinned: kernels of any later trace may call it
  math_loaded()[object.symbol] = true;
}

bool math_function_loaded(const std::string& name) {
  std::lock_guard<std::mutex> lock(math_mu);
  return math_loaded().contains(name);
}

namespace {
// Machine code for an optimised module, by this thread's target machine for the tier.
std::string emit_machine_code(llvm::Module& m, Tier tier = Tier::Full) {
  llvm::SmallVector<char, 0> buf;
  {
    llvm::raw_svector_ostream os(buf);
    llvm::legacy::PassManager pm;
    if (thread_tm(tier).addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
      fail(ErrorKind::Runtime, "cpu jit: target cannot emit objects");
    pm.run(m);
  }
  return std::string(buf.begin(), buf.end());
}

ObjectCode emit_object(llvm::Module& m, const std::string& symbol) {
  optimize(m);
  ObjectCode out;
  out.symbol = symbol;
  out.bytes = emit_machine_code(m);
  return out;
}
}  // namespace

ObjectCode compile_runtime_object(const std::string& symbol, const std::function<void(llvm::Module&)>& gen) {
  llvm::LLVMContext ctx;
  auto m = build_module(ctx, symbol, gen, symbol.c_str());
  return emit_object(*m, symbol);
}

void* compile_runtime_function(const std::string& symbol, const std::function<void(llvm::Module&)>& gen) {
  load_kernel_object(compile_runtime_object(symbol, gen));
  return lookup_jit_symbol(symbol);
}

ObjectCode compile_math_function(const std::string& name) {
  llvm::LLVMContext ctx;
  auto m = build_module(ctx, name, [&](llvm::Module& mod) { generate_math_function(mod, name); }, name.c_str());
  return emit_object(*m, name);
}

ObjectCode compile_kernel_object(const Kernel& kernel, CompileTimes* times, Tier tier) {
  ObjectCode out;
  out.symbol = kernel_symbol(kernel, tier);
  auto t0 = std::chrono::steady_clock::now();
  llvm::LLVMContext ctx;
  auto m = build_module(ctx, kernel, out.symbol, tier);
  auto t1 = std::chrono::steady_clock::now();
  optimize(*m);
  auto t2 = std::chrono::steady_clock::now();
  out.bytes = emit_machine_code(*m, tier);
  if (times) {
    times->codegen_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    times->optimize_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
    times->emit_ms = ms_since(t2);
  }
  return out;
}

namespace {
// Launch granularity: below ~64k element-steps a thread handoff costs more
// than it saves, so such work runs on the calling thread; TBB ranges carry
// about kGrainWork element-steps each.
constexpr int64_t kSerialWork = 1 << 16, kGrainWork = 1 << 15;
}  // namespace

bool kernels_reduce_alike(const Kernel& a, const Kernel& b) {
  if (a.kind != b.kind) return false;
  if (a.kind != KernelKind::Rows) return true;
  if (kernel_reduces_columns(a) != kernel_reduces_columns(b)) return false;
  const bool lanes = std::any_of(a.ops.begin(), a.ops.end(), [](const KOp& o) { return reduces_in_lanes(o); });
  return !lanes || (row_lanes(a) == row_lanes(b) && rows_nest_inner_loops(a) == rows_nest_inner_loops(b));
}

void pin_reduction_order(Kernel* generic, const Kernel& concrete) {
  if (generic->kind != KernelKind::Rows || concrete.kind != KernelKind::Rows) return;
  generic->pinned_nest = rows_nest_inner_loops(concrete) ? 1 : 0;
  generic->pinned_lanes = static_cast<int16_t>(row_lanes(concrete));
}

bool kernel_reduces_columns(const Kernel& k) {
  if (k.kind != KernelKind::Rows || k.num_phases != 1 || k.serial || k.outer_rank < 1 || !jit().column_reduce)
    return false;
  size_t outer = static_cast<size_t>(k.outer_rank), r = k.domain.size();
  if (r <= outer || k.inner_size() < 2 || k.domain[outer - 1] < 8) return false;
  size_t inner_axis = r - 1;  // the inner loop's contiguous axis: the last one longer than 1
  while (inner_axis > outer && k.domain[inner_axis] == 1) --inner_axis;
  bool any_column = false, any = false;
  std::vector<int64_t> f;
  for (const KOp& o : k.ops) {
    if (o.code == KOpCode::Scan) return false;
    if (o.elem && is_effect(o.code)) return false;
    if (o.code == KOpCode::Reduce) {
      if (o.op != Op::ReduceSum && o.op != Op::ReduceProd && o.op != Op::ReduceMax && o.op != Op::ReduceMin) return false;
      any = true;
    }
    if (o.code != KOpCode::Load || !o.elem) continue;
    bool known = true;  // an index argument in the base does not change the strides
    if (!affine_offset(k, o.inputs[0], &f, &known)) return false;  // a gather: leave the kernel as it is
    if (f[inner_axis] == 1 || f[inner_axis] == -1) return false;  // contiguous along the inner loop
    if (f[outer - 1] == 1) any_column = true;
  }
  return any && any_column;
}

namespace {
// Whether rows may be long enough for launch_kernel to split them: they are
// now, or their length is a runtime extent (a shape-generic kernel, compiled
// once for every length, carries the split entries; launch_kernel uses them
// only for rows that are long).
bool rows_may_split(const Kernel& k) {
  if (k.inner_size() >= 2 * kGrainWork) return true;
  for (size_t a = static_cast<size_t>(k.outer_rank); a < k.domain.size(); ++a)
    if (k.symbolic_axis(a)) return true;
  return false;
}
}  // namespace

bool kernel_splits_columns(const Kernel& k) {
  // Only columns long enough for launch_kernel to split (as split rows).
  return rows_may_split(k) && kernel_reduces_columns(k);
}

bool kernel_splits_reduction(const Kernel& k) {
  if (k.kind != KernelKind::Rows || k.num_phases != 1 || k.serial) return false;
  if (kernel_reduces_columns(k)) return false;  // its rows read along each other (one thread)
  // launch_kernel() splits only rows this long; shorter ones would carry two
  // entries that never run (a third of a reduction kernel's compile time).
  if (!rows_may_split(k)) return false;
  bool any = false;
  for (const KOp& o : k.ops) {
    if (o.code == KOpCode::Scan) return false;
    if (o.elem && (o.code == KOpCode::Store || o.code == KOpCode::AccumStore)) return false;
    if (o.code == KOpCode::Reduce) {
      if (o.op != Op::ReduceSum && o.op != Op::ReduceProd && o.op != Op::ReduceMax && o.op != Op::ReduceMin) return false;
      any = true;
    }
  }
  return any;
}

namespace {

Counter jit_objects_loaded("jit_objects_loaded");
Counter jit_objects_unloaded("jit_objects_unloaded");

// Owner of one loaded object (KernelEntry::keep). Destroyed when the last
// entry copy goes; never while Jit::mu is held by this thread (see below).
struct LoadedObject {
  std::string symbol;
  llvm::orc::ResourceTrackerSP tracker;
};

void remove_tracker(const llvm::orc::ResourceTrackerSP& tracker) {
  if (auto e = tracker->remove()) {
    // The code stays mapped: harmless, and there is nobody to tell but the log.
    std::fprintf(stderr, "[lt] cpu jit: unloading a kernel object failed: %s\n", llvm_error(std::move(e)).c_str());
  }
}

void unload(const LoadedObject* o) {
  Jit& j = jit();
  {
    std::lock_guard<std::mutex> lock(j.mu);
    auto it = j.loaded.find(o->symbol);
    // A load of the same symbol may already have found the slot expired and
    // removed it (then it is gone, or holds a newer tracker): nothing to do.
    if (it != j.loaded.end() && it->second.tracker == o->tracker) {
      j.loaded.erase(it);
      remove_tracker(o->tracker);
      jit_objects_unloaded.add();
    }
  }
  delete o;
}

}  // namespace

KernelEntry load_kernel_entry(const ObjectCode& object) {
  Jit& j = jit();
  // Declared before the lock so that, should this be the last owner of an
  // object that is going away, its unload runs after the lock is released.
  std::shared_ptr<const void> held;
  KernelEntry entry;
  std::lock_guard<std::mutex> lock(j.mu);
  auto it = j.loaded.find(object.symbol);
  if (it != j.loaded.end()) {
    if ((held = it->second.handle.lock())) {
      entry = it->second.entry;
      entry.keep = held;
      return entry;
    }
    // Its last owner is gone and its unload has not run yet: unload it here,
    // so that the symbol can be defined again.
    remove_tracker(it->second.tracker);
    j.loaded.erase(it);
    jit_objects_unloaded.add();
  }
  auto mb = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(object.bytes.data(), object.bytes.size()), object.symbol);
  // Each object has its own tracker: a failed load is removed again (a later
  // load of the same kernel can then succeed instead of failing with a
  // duplicate definition), and an object nobody holds any more is unloaded.
  llvm::orc::ResourceTrackerSP tracker = j.lljit->getMainJITDylib().createResourceTracker();
  auto give_up = [&](const char* what, llvm::Error e) {
    std::string why = llvm_error(std::move(e));
    {
      std::lock_guard<std::mutex> report(j.report_mu);
      if (!j.session_error.empty()) why += cat(" (JIT session error: ", j.session_error, ")");
      j.session_error.clear();
    }
    if (auto removed = tracker->remove()) llvm::consumeError(std::move(removed));
    fail(ErrorKind::Runtime, "cpu jit: ", what, " ", object.symbol, ": ", why, "; this process has ", j.loaded.size(),
         " kernel objects loaded (each holds a few memory mappings; see vm.max_map_count and LT_TRACE_CACHE_MAX)");
  };
  if (auto e = j.lljit->addObjectFile(tracker, std::move(mb))) give_up("cannot load object", std::move(e));
  auto sym = j.lljit->lookup(object.symbol);
  if (!sym) give_up("cannot link kernel", sym.takeError());
  entry.fn = sym->toPtr<KernelFn>();
  // Split-reduction entries are optional: an object without them just has none.
  auto part = j.lljit->lookup(object.symbol + "_part");
  auto cpart = j.lljit->lookup(object.symbol + "_cpart");
  auto finish = part || cpart ? j.lljit->lookup(object.symbol + "_finish")
                              : llvm::Expected<llvm::orc::ExecutorAddr>(llvm::orc::ExecutorAddr());
  if ((part || cpart) && finish) {
    if (part) entry.part = part->toPtr<RowPartFn>();
    if (cpart) entry.column_part = cpart->toPtr<ColumnPartFn>();
    entry.finish = finish->toPtr<RowFinishFn>();
  } else if (!finish) {
    llvm::consumeError(finish.takeError());
  }
  if (!part) llvm::consumeError(part.takeError());
  if (!cpart) llvm::consumeError(cpart.takeError());
  held = std::shared_ptr<const LoadedObject>(new LoadedObject{object.symbol, tracker}, unload);
  j.loaded[object.symbol] = Jit::Slot{held, tracker, entry};
  jit_objects_loaded.add();
  entry.keep = held;
  return entry;
}

KernelFn load_kernel_object(const ObjectCode& object) {
  KernelEntry e = load_kernel_entry(object);
  Jit& j = jit();
  std::lock_guard<std::mutex> lock(j.mu);
  j.pinned.push_back(e.keep);
  return e.fn;
}

std::string loaded_symbol(KernelFn fn) {
  Jit& j = jit();
  std::lock_guard<std::mutex> lock(j.mu);
  for (const auto& [symbol, slot] : j.loaded)
    if (slot.entry.fn == fn) return symbol;
  fail(ErrorKind::Runtime, "cpu jit: no loaded kernel object has its entry at ",
       static_cast<int64_t>(reinterpret_cast<uintptr_t>(fn)));
}

size_t loaded_kernel_objects() {
  Jit& j = jit();
  std::lock_guard<std::mutex> lock(j.mu);
  return j.loaded.size();
}

std::string kernel_llvm_ir(const Kernel& kernel, bool optimized, Tier tier) {
  llvm::LLVMContext ctx;
  auto m = build_module(ctx, kernel, kernel_symbol(kernel, tier), tier);
  if (optimized) optimize(*m);
  std::string s;
  llvm::raw_string_ostream os(s);
  m->print(os, nullptr);
  return s;
}

void* lookup_jit_symbol(const std::string& name) {
  Jit& j = jit();
  std::lock_guard<std::mutex> lock(j.mu);
  auto sym = j.lljit->lookup(name);
  if (!sym) fail(ErrorKind::Runtime, "cpu jit: symbol ", name, " not found: ", llvm_error(sym.takeError()));
  return sym->toPtr<void*>();
}

namespace {

void raise_kernel_error(const ErrorSlot& err) {
  if (err.code == 0) return;
  raise_bad_index(err.code, err.value, err.axis, err.bound);
}

// Chunk of a split row: fixed by the row length only (determinism), at
// least 32k elements, at most 256 chunks per row, a multiple of 64.
int64_t split_chunk(int64_t inner) {
  int64_t c = std::max<int64_t>(kGrainWork, (inner + 255) / 256);
  return (c + 63) / 64 * 64;
}

}  // namespace

void launch_kernel(const Kernel& kernel, KernelFn fn, void* const* buffers, const int64_t* scalars) {
  KernelEntry entry;
  entry.fn = fn;
  entry.reduces_columns = kernel_reduces_columns(kernel);
  launch_kernel(kernel, entry, buffers, scalars);
}

void launch_kernel(const Kernel& kernel, const KernelEntry& entry, void* const* buffers, const int64_t* scalars,
                   const Buffer* const* fixed) {
  if (kernel.kind == KernelKind::MatMul) return launch_matmul(kernel, entry.fn, entry.keep, buffers, scalars, fixed);
  int64_t range = kernel.outer_size();
  if (range <= 0) return;
  ErrorSlot err;
  KernelArgs args{buffers, scalars, &err};
  int64_t per_item =
      kernel.kind == KernelKind::Elementwise ? 1 : std::max<int64_t>(1, kernel.inner_size() * kernel.num_phases);
  int64_t threads = tbb::this_task_arena::max_concurrency();
  static const bool no_split = std::getenv("LT_NO_SPLIT") != nullptr;
  int64_t column_blocks = (range + kColumnBlock - 1) / kColumnBlock;
  bool split_rows = entry.part && !kernel.serial && range < 4 * threads;
  bool split_columns = entry.column_part && column_blocks < 2 * threads;
  if (!no_split && entry.finish && (split_rows || split_columns) && threads > 1 &&
      kernel.inner_size() >= 2 * kGrainWork) {
    // Few long rows, or few blocks of rows with long columns: partials of
    // (row or block, chunk of the inner elements) on all threads, then an
    // ordered combine per row. partials[(row * nparts + p) * nred + i].
    int64_t inner = kernel.inner_size(), chunk = split_chunk(inner);
    int64_t nparts = (inner + chunk - 1) / chunk, nred = 0;
    for (const KOp& o : kernel.ops) nred += o.code == KOpCode::Reduce;
    std::vector<int64_t> partials(static_cast<size_t>(range * nparts * nred));
    int64_t units = split_rows ? range : column_blocks;
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, units * nparts, 1), [&](const tbb::blocked_range<int64_t>& r) {
      for (int64_t t = r.begin(); t < r.end(); ++t) {
        int64_t u = t / nparts, p = t % nparts, ib = p * chunk, ie = std::min(inner, (p + 1) * chunk);
        if (split_rows)
          entry.part(&args, u, ib, ie, partials.data() + t * nred);
        else
          entry.column_part(&args, u * kColumnBlock, std::min(range, (u + 1) * kColumnBlock), ib, ie,
                            partials.data() + p * nred, nparts * nred);
      }
    });
    for (int64_t row = 0; row < range; ++row) entry.finish(&args, row, partials.data() + row * nparts * nred, nparts);
    raise_kernel_error(err);
    return;
  }
  if (kernel.serial || range * per_item < kSerialWork || range == 1) {
    entry.fn(&args, 0, range);
  } else if (entry.reduces_columns) {
    // Whole blocks of kColumnBlock rows per range: a thread's rows share cache lines.
    // Ranges of a whole segment where the threads still all get work: a
    // segment reads kColumnSegment contiguous elements per inner step, which
    // the prefetchers follow; 16-row ranges read one line per step.
    int64_t grain = std::max(kGrainWork / (kColumnBlock * per_item),
                             std::min(kColumnSegment / kColumnBlock, column_blocks / threads));
    grain = std::max<int64_t>(1, grain);
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, column_blocks, grain), [&](const tbb::blocked_range<int64_t>& r) {
      entry.fn(&args, r.begin() * kColumnBlock, std::min(range, r.end() * kColumnBlock));
    });
  } else if (kernel_overlaps_tail(kernel)) {
    // Whole blocks per range, the remainder with the last block (see jit.h).
    int64_t blocks = range / kTailBlock;
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, blocks, std::max<int64_t>(1, kGrainWork / kTailBlock)),
                      [&](const tbb::blocked_range<int64_t>& r) {
                        entry.fn(&args, r.begin() * kTailBlock, r.end() == blocks ? range : r.end() * kTailBlock);
                      });
  } else {
    int64_t grain = std::max<int64_t>(1, kGrainWork / per_item);
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, range, grain),
                      [&](const tbb::blocked_range<int64_t>& r) { entry.fn(&args, r.begin(), r.end()); });
  }
  raise_kernel_error(err);
}

size_t compile_threads() {
  static const size_t cap = [] {
    const char* e = std::getenv("LT_COMPILE_THREADS");
    int v = e && *e ? std::atoi(e) : 0;
    return v > 0 ? static_cast<size_t>(v) : std::max<size_t>(1, std::thread::hardware_concurrency());
  }();
  return cap;
}

void compile_in_parallel(size_t n, const std::function<void(size_t)>& compile_one) {
  size_t threads = std::min(n, compile_threads());
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i) compile_one(i);
    return;
  }
  // Plain threads (not TBB's pool): a compile takes milliseconds, so starting
  // a thread is cheap next to it, and ThreadSanitizer sees the joins (TBB's
  // library is not instrumented, so `make test-tsan` could not check this).
  std::atomic<size_t> next{0};
  std::mutex error_mu;
  std::exception_ptr error;
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        compile_one(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = std::current_exception();
        next.store(n);  // the others stop after their current kernel
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace lt::cpu
