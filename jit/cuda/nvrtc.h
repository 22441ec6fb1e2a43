// jit/cuda/nvrtc.h — CUDA C++ -> PTX or cubin through NVRTC (linked, no GPU needed).
//
// A failed compile is a bug in codegen: it raises lt::Error with NVRTC's log
// and the path of a file holding the source ($LT_DUMP_DIR, else the temp dir).
#pragma once

#include <string>
#include <vector>

namespace lt::cuda {

struct CompiledModule {
  std::string arch;   ///< "sm_90" (image is cubin) or "compute_90" (image is PTX)
  std::string image;  ///< what cuModuleLoadData takes
  std::string ptx;    ///< the PTX (for either kind of arch)
  std::string log;    ///< NVRTC's log (warnings), possibly empty
  double compile_ms = 0;
};

/// "nvrtc-13.0": part of every cubin cache key.
const std::string& nvrtc_version();
/// The architectures this NVRTC can target, as numbers (75, 80, 90, ...).
std::vector<int> nvrtc_supported_archs();

/// Compiles `source` for `arch`: "sm_XY" gives a cubin, "compute_XY" gives PTX.
/// `name` names the program in logs and the dump file.
CompiledModule nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch);

}  // namespace lt::cuda
