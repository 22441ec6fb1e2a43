// jit/cpu/compiler.cpp — optimisation, object emission, ORC loading and launch.
//
// Compile time is performance: each kernel gets its own LLVMContext/Module, a
// trimmed O2 pipeline (the loop vectoriser and SLP are what matter for these
// loop nests) and codegen at -O2 for the host CPU. Objects are produced as
// bytes first (so cache/ can store them) and then linked into one
// process-wide LLJIT whose main dylib resolves libm/libc from the process.
#include <chrono>
#include <functional>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "ir/error.h"
#include "jit/cpu/codegen.h"
#include "jit/cpu/jit.h"
#include "jit/cpu/matmul.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"
#include "llvm/Transforms/IPO/GlobalDCE.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/LICM.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/LoopRotation.h"
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

struct Jit {
  std::mutex mu;  // guards tm (not thread-safe for emission) and `loaded`
  std::unique_ptr<llvm::TargetMachine> tm;
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  std::string target;
  absl::flat_hash_map<std::string, KernelFn> loaded;

  Jit() {
    llvm::InitializeNativeTarget();
    // The remainder of a vector loop runs the scalar loop; a second, narrower
    // vector epilogue would double the emitted code for little gain.
    const char* argv[] = {"lazytensor", "-enable-epilogue-vectorization=false"};
    llvm::cl::ParseCommandLineOptions(2, argv);
    llvm::InitializeNativeTargetAsmPrinter();
    auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) fail(ErrorKind::Runtime, "cpu jit: cannot detect host: ", llvm_error(jtmb.takeError()));
    jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Less);  // -O1 isel: most of the emit time saved, same loops
    jtmb->setRelocationModel(llvm::Reloc::PIC_);
    auto tm_or = jtmb->createTargetMachine();
    if (!tm_or) fail(ErrorKind::Runtime, "cpu jit: ", llvm_error(tm_or.takeError()));
    tm = std::move(*tm_or);
    target = cat(std::string(tm->getTargetCPU()), ";", std::string(tm->getTargetFeatureString()), ";llvm-",
                 LLVM_VERSION_STRING);
    auto j = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*jtmb).create();
    if (!j) fail(ErrorKind::Runtime, "cpu jit: ", llvm_error(j.takeError()));
    lljit = std::move(*j);
    auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(lljit->getDataLayout().getGlobalPrefix());
    if (!gen) fail(ErrorKind::Runtime, "cpu jit: ", llvm_error(gen.takeError()));
    lljit->getMainJITDylib().addGenerator(std::move(*gen));
  }
};

Jit& jit() {
  static Jit* j = new Jit();  // never destroyed: kernels may run during static destruction
  return *j;
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

std::unique_ptr<llvm::Module> build_module(llvm::LLVMContext& ctx, const Kernel& kernel, const std::string& symbol) {
  return build_module(
      ctx, symbol,
      [&](llvm::Module& m) {
        if (kernel.kind == KernelKind::MatMul)
          generate_matmul_kernel(kernel, m, symbol);
        else
          generate_kernel(kernel, m, symbol);
      },
      print_kernel(kernel).c_str());
}

// A trimmed pipeline instead of buildPerModuleDefaultPipeline(O2) (~4x the
// time for these kernels): inline the body into the entry, promote
// accumulators, clean up, then the loop passes that matter (rotate, LICM,
// vectorise with the host's TTI) and a final cleanup.
void optimize(llvm::Module& m) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(jit().tm.get());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::AlwaysInlinerPass());
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
  fpm.addPass(llvm::EarlyCSEPass());
  fpm.addPass(llvm::InstCombinePass());
  fpm.addPass(llvm::SimplifyCFGPass());
  {
    llvm::LoopPassManager lpm;
    lpm.addPass(llvm::LoopRotatePass());
    lpm.addPass(llvm::LICMPass(llvm::LICMOptions()));
    fpm.addPass(llvm::createFunctionToLoopPassAdaptor(std::move(lpm), /*UseMemorySSA=*/true));
  }
  // Interleaving only where codegen asked for it (reduction loops carry
  // llvm.loop.interleave.count): elementwise loops are memory-bound and
  // interleaving them multiplies code size and compile time.
  fpm.addPass(llvm::LoopVectorizePass(llvm::LoopVectorizeOptions().setInterleaveOnlyWhenForced(true)));
  fpm.addPass(llvm::InstCombinePass());
  fpm.addPass(llvm::SimplifyCFGPass());
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  mpm.addPass(llvm::GlobalDCEPass());
  mpm.run(m, mam);
}

}  // namespace

const std::string& target_id() { return jit().target; }

std::string kernel_symbol(const Kernel& kernel) { return "lt_k_" + hash_hex(kernel.hash()); }

namespace {
ObjectCode emit_object(llvm::Module& m, const std::string& symbol) {
  optimize(m);
  ObjectCode out;
  out.symbol = symbol;
  llvm::SmallVector<char, 0> buf;
  {
    llvm::raw_svector_ostream os(buf);
    llvm::legacy::PassManager pm;
    Jit& j = jit();
    std::lock_guard<std::mutex> lock(j.mu);
    if (j.tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
      fail(ErrorKind::Runtime, "cpu jit: target cannot emit objects");
    pm.run(m);
  }
  out.bytes.assign(buf.begin(), buf.end());
  return out;
}
}  // namespace

void* compile_runtime_function(const std::string& symbol, const std::function<void(llvm::Module&)>& gen) {
  llvm::LLVMContext ctx;
  auto m = build_module(ctx, symbol, gen, symbol.c_str());
  load_kernel_object(emit_object(*m, symbol));
  return lookup_jit_symbol(symbol);
}

ObjectCode compile_kernel_object(const Kernel& kernel, CompileTimes* times) {
  ObjectCode out;
  out.symbol = kernel_symbol(kernel);
  auto t0 = std::chrono::steady_clock::now();
  llvm::LLVMContext ctx;
  auto m = build_module(ctx, kernel, out.symbol);
  auto t1 = std::chrono::steady_clock::now();
  optimize(*m);
  auto t2 = std::chrono::steady_clock::now();
  llvm::SmallVector<char, 0> buf;
  {
    llvm::raw_svector_ostream os(buf);
    llvm::legacy::PassManager pm;
    Jit& j = jit();
    std::lock_guard<std::mutex> lock(j.mu);
    if (j.tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
      fail(ErrorKind::Runtime, "cpu jit: target cannot emit objects");
    pm.run(*m);
  }
  out.bytes.assign(buf.begin(), buf.end());
  if (times) {
    times->codegen_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    times->optimize_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
    times->emit_ms = ms_since(t2);
  }
  return out;
}

KernelFn load_kernel_object(const ObjectCode& object) {
  Jit& j = jit();
  std::lock_guard<std::mutex> lock(j.mu);
  auto it = j.loaded.find(object.symbol);
  if (it != j.loaded.end()) return it->second;
  auto mb = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(object.bytes.data(), object.bytes.size()), object.symbol);
  if (auto e = j.lljit->addObjectFile(std::move(mb))) fail(ErrorKind::Runtime, "cpu jit: cannot load object: ", llvm_error(std::move(e)));
  auto sym = j.lljit->lookup(object.symbol);
  if (!sym) fail(ErrorKind::Runtime, "cpu jit: symbol ", object.symbol, " not found: ", llvm_error(sym.takeError()));
  KernelFn fn = sym->toPtr<KernelFn>();
  j.loaded[object.symbol] = fn;
  return fn;
}

std::string kernel_llvm_ir(const Kernel& kernel, bool optimized) {
  llvm::LLVMContext ctx;
  auto m = build_module(ctx, kernel, kernel_symbol(kernel));
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

void launch_kernel(const Kernel& kernel, KernelFn fn, void* const* buffers, const int64_t* scalars) {
  if (kernel.kind == KernelKind::MatMul) return launch_matmul(kernel, fn, buffers, scalars);
  int64_t range = kernel.outer_size();
  if (range <= 0) return;
  ErrorSlot err;
  KernelArgs args{buffers, scalars, &err};
  int64_t per_item = kernel.kind == KernelKind::Elementwise ? 1
                     : kernel.kind == KernelKind::MatMul   ? kernel.domain[2] * kernel.domain[3]
                                                           : std::max<int64_t>(1, kernel.inner_size() * kernel.num_phases);
  // Below ~64k element-steps a thread handoff costs more than it saves.
  constexpr int64_t kSerialWork = 1 << 16, kGrainWork = 1 << 15;
  if (kernel.serial || range * per_item < kSerialWork || range == 1) {
    fn(&args, 0, range);
  } else {
    int64_t grain = std::max<int64_t>(1, kGrainWork / per_item);
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, range, grain),
                      [&](const tbb::blocked_range<int64_t>& r) { fn(&args, r.begin(), r.end()); });
  }
  if (err.code != 0) {
    Op op = static_cast<Op>(err.code - 1);
    fail(ErrorKind::Index, op_name(op), ": index ", err.value, " is out of bounds for dimension ", err.axis,
         " with size ", err.bound);
  }
}

}  // namespace lt::cpu
