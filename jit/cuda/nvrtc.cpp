// jit/cuda/nvrtc.cpp — NVRTC compilation with errors that point at the source.
#include "jit/cuda/nvrtc.h"

#include <nvrtc.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "ir/error.h"

namespace lt::cuda {
namespace {

std::string dump_source(const std::string& source, const std::string& name) {
  const char* env = std::getenv("LT_DUMP_DIR");
  std::filesystem::path dir;
  std::error_code ec;
  if (env && *env) dir = env;
  else dir = std::filesystem::temp_directory_path(ec) / "lazytensor-cuda";
  std::filesystem::create_directories(dir, ec);
  std::filesystem::path path = dir / (name + ".cu");
  std::ofstream(path) << source;
  return path.string();
}

void check(nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS) fail(ErrorKind::Runtime, "nvrtc: ", what, ": ", nvrtcGetErrorString(r));
}

}  // namespace

const std::string& nvrtc_version() {
  static const std::string v = [] {
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    return "nvrtc-" + std::to_string(major) + "." + std::to_string(minor);
  }();
  return v;
}

std::vector<int> nvrtc_supported_archs() {
  int n = 0;
  check(nvrtcGetNumSupportedArchs(&n), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(n);
  if (n) check(nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  return archs;
}

CompiledModule nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch) {
  auto t0 = std::chrono::steady_clock::now();
  nvrtcProgram prog;
  check(nvrtcCreateProgram(&prog, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram");
  struct Destroy {
    nvrtcProgram* p;
    ~Destroy() { nvrtcDestroyProgram(p); }
  } destroy{&prog};
  // No fast math: results are compared with the reference evaluator, and
  // contraction into FMA is left to the explicit fma() calls in matmul.
  std::string arch_flag = "--gpu-architecture=" + arch;
  const char* opts[] = {arch_flag.c_str(), "--std=c++17", "--fmad=false", "-default-device"};
  nvrtcResult r = nvrtcCompileProgram(prog, 4, opts);
  CompiledModule m;
  m.arch = arch;
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  if (log_size > 1) {
    m.log.resize(log_size);
    nvrtcGetProgramLog(prog, m.log.data());
    m.log.resize(log_size - 1);
  }
  if (r != NVRTC_SUCCESS) {
    std::string path = dump_source(source, name);
    fail(ErrorKind::Runtime, "cuda: NVRTC failed to compile kernel ", name, " for ", arch, " (", nvrtcGetErrorString(r),
         "); source written to ", path, "\n", m.log);
  }
  size_t size = 0;
  check(nvrtcGetPTXSize(prog, &size), "nvrtcGetPTXSize");
  m.ptx.resize(size);
  check(nvrtcGetPTX(prog, m.ptx.data()), "nvrtcGetPTX");
  while (!m.ptx.empty() && m.ptx.back() == '\0') m.ptx.pop_back();
  if (arch.rfind("sm_", 0) == 0) {
    check(nvrtcGetCUBINSize(prog, &size), "nvrtcGetCUBINSize");
    m.image.resize(size);
    check(nvrtcGetCUBIN(prog, m.image.data()), "nvrtcGetCUBIN");
  } else {
    m.image = m.ptx;
  }
  m.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

}  // namespace lt::cuda
