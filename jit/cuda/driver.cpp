// jit/cuda/driver.cpp — dlopen loader for libcuda and thin checked wrappers.
//
// cuda.h is included for types and for its versioning macros only: it maps
// cuMemAlloc to cuMemAlloc_v2 and so on, so `decltype(&cuMemAlloc)` is the
// current prototype and LT_STR(cuMemAlloc) the exported symbol to dlsym.
#include "jit/cuda/driver.h"

#include <cuda.h>
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "ir/error.h"
#include "jit/cuda/nvrtc.h"

#define LT_STR2(x) #x
#define LT_STR(x) LT_STR2(x)

#define LT_CU_FUNCTIONS(X)                                                                                         \
  X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute)   \
  X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuModuleLoadData) X(cuModuleGetFunction)   \
  X(cuLaunchKernel) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync)     \
  X(cuMemsetD8Async) X(cuStreamCreate) X(cuStreamSynchronize) X(cuEventCreate) X(cuEventRecord)                   \
  X(cuEventSynchronize) X(cuEventDestroy) X(cuGetErrorName) X(cuGetErrorString)

namespace lt::cuda {
namespace {

struct Driver {
#define LT_DECLARE(f) decltype(&f) f##_ = nullptr;
  LT_CU_FUNCTIONS(LT_DECLARE)
#undef LT_DECLARE
  CUresult (*cuEventElapsedTime_)(float*, CUevent, CUevent) = nullptr;

  std::string unavailable;  ///< empty when usable
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUevent done = nullptr;
  DeviceInfo info;
  std::string arch;

  Driver() { unavailable = init(); }

  std::string error_text(CUresult r) const {
    const char *name = nullptr, *text = nullptr;
    if (cuGetErrorName_) cuGetErrorName_(r, &name);
    if (cuGetErrorString_) cuGetErrorString_(r, &text);
    return std::string(name ? name : "CUDA error ") + (name ? "" : std::to_string(static_cast<int>(r))) +
           (text ? std::string(" (") + text + ")" : "");
  }

  std::string init() {
    const char* names[] = {"libcuda.so.1", "libcuda.so"};
    void* lib = nullptr;
    std::string dl_error;
    for (const char* n : names) {
      lib = dlopen(n, RTLD_NOW | RTLD_LOCAL);
      if (lib) break;
      const char* e = dlerror();
      if (dl_error.empty() && e) dl_error = e;
    }
    if (!lib) return "the CUDA driver library libcuda.so.1 could not be loaded (" + dl_error + ")";
#define LT_RESOLVE(f)                                                                       \
  f##_ = reinterpret_cast<decltype(f##_)>(dlsym(lib, LT_STR(f)));                           \
  if (!f##_) return std::string("the CUDA driver lacks ") + LT_STR(f) + " (driver too old?)";
    LT_CU_FUNCTIONS(LT_RESOLVE)
#undef LT_RESOLVE
    for (const char* n : {"cuEventElapsedTime_v2", "cuEventElapsedTime"})
      if (!cuEventElapsedTime_) cuEventElapsedTime_ = reinterpret_cast<decltype(cuEventElapsedTime_)>(dlsym(lib, n));
    CUresult r = cuInit_(0);
    if (r != CUDA_SUCCESS) return "cuInit failed: " + error_text(r);
    int count = 0;
    r = cuDeviceGetCount_(&count);
    if (r != CUDA_SUCCESS) return "cuDeviceGetCount failed: " + error_text(r);
    const char* env = std::getenv("LT_CUDA_DEVICE");
    int ordinal = env && *env ? std::atoi(env) : 0;
    if (count == 0) return "the driver reports no CUDA devices";
    if (ordinal < 0 || ordinal >= count)
      return "LT_CUDA_DEVICE=" + std::to_string(ordinal) + " but there are " + std::to_string(count) + " devices";
    if ((r = cuDeviceGet_(&device, ordinal)) != CUDA_SUCCESS) return "cuDeviceGet failed: " + error_text(r);
    if ((r = cuDevicePrimaryCtxRetain_(&context, device)) != CUDA_SUCCESS)
      return "cuDevicePrimaryCtxRetain failed: " + error_text(r);
    if ((r = cuCtxSetCurrent_(context)) != CUDA_SUCCESS) return "cuCtxSetCurrent failed: " + error_text(r);
    if ((r = cuStreamCreate_(&stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
      return "cuStreamCreate failed: " + error_text(r);
    if ((r = cuEventCreate_(&done, CU_EVENT_DISABLE_TIMING)) != CUDA_SUCCESS)
      return "cuEventCreate failed: " + error_text(r);
    char name[256] = {0};
    cuDeviceGetName_(name, sizeof name - 1, device);
    info.name = name;
    info.ordinal = ordinal;
    cuDeviceGetAttribute_(&info.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    cuDeviceGetAttribute_(&info.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    cuDeviceGetAttribute_(&info.sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
    cuDriverGetVersion_(&info.driver_version);
    size_t total = 0;
    cuDeviceTotalMem_(&total, device);
    info.total_memory = static_cast<int64_t>(total);
    // The newest NVRTC real architecture not above the device's; a newer
    // device than NVRTC knows gets PTX for the newest one (the driver JITs it).
    int want = info.cc_major * 10 + info.cc_minor, best = 0;
    for (int a : nvrtc_supported_archs())
      if (a <= want && a > best) best = a;
    if (best == want) arch = "sm_" + std::to_string(best);
    else if (best) arch = "compute_" + std::to_string(best);
    else return "NVRTC (" + nvrtc_version() + ") cannot target compute capability " + std::to_string(want);
    return "";
  }
};

Driver& driver() {
  static Driver* d = new Driver();  // never destroyed: the driver may already be torn down at exit
  return *d;
}

Driver& ready() {
  Driver& d = driver();
  if (!d.unavailable.empty()) fail(ErrorKind::Runtime, "no CUDA device is available: ", d.unavailable);
  thread_local bool current = false;
  if (!current) {
    d.cuCtxSetCurrent_(d.context);
    current = true;
  }
  return d;
}

void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) fail(ErrorKind::Runtime, "cuda: ", what, " failed: ", driver().error_text(r));
}

}  // namespace

bool device_available() { return driver().unavailable.empty(); }
std::string device_unavailable_reason() { return driver().unavailable; }
void require_device() { ready(); }
const DeviceInfo& device_info() { return ready().info; }
std::string device_arch() { return ready().arch; }

void* load_module(const std::string& image) {
  Driver& d = ready();
  CUmodule m = nullptr;
  check(d.cuModuleLoadData_(&m, image.c_str()), "cuModuleLoadData");
  return m;
}

void* module_function(void* module, const std::string& name) {
  Driver& d = ready();
  CUfunction f = nullptr;
  check(d.cuModuleGetFunction_(&f, static_cast<CUmodule>(module), name.c_str()), "cuModuleGetFunction");
  return f;
}

void launch(void* function, unsigned grid, unsigned block, unsigned shared_bytes, void** params) {
  Driver& d = ready();
  check(d.cuLaunchKernel_(static_cast<CUfunction>(function), grid, 1, 1, block, 1, 1, shared_bytes, d.stream, params,
                          nullptr),
        "cuLaunchKernel");
}

bool try_raw_alloc(size_t bytes, DevicePtr* out) {
  Driver& d = ready();
  CUdeviceptr p = 0;
  if (d.cuMemAlloc_(&p, bytes) != CUDA_SUCCESS) return false;
  *out = p;
  return true;
}

DevicePtr raw_alloc(size_t bytes) {
  Driver& d = ready();
  CUdeviceptr p = 0;
  check(d.cuMemAlloc_(&p, bytes), "cuMemAlloc");
  return p;
}

void raw_free(DevicePtr ptr) {
  Driver& d = ready();
  check(d.cuMemFree_(ptr), "cuMemFree");
}

void copy_to_device(DevicePtr dst, const void* src, size_t bytes) {
  if (!bytes) return;
  Driver& d = ready();
  check(d.cuMemcpyHtoDAsync_(dst, src, bytes, d.stream), "cuMemcpyHtoDAsync");
}

void copy_to_host(void* dst, DevicePtr src, size_t bytes) {
  if (!bytes) return;
  Driver& d = ready();
  check(d.cuMemcpyDtoHAsync_(dst, src, bytes, d.stream), "cuMemcpyDtoHAsync");
}

void copy_on_device(DevicePtr dst, DevicePtr src, size_t bytes) {
  if (!bytes) return;
  Driver& d = ready();
  check(d.cuMemcpyDtoDAsync_(dst, src, bytes, d.stream), "cuMemcpyDtoDAsync");
}

void fill_zero(DevicePtr dst, size_t bytes) {
  if (!bytes) return;
  Driver& d = ready();
  check(d.cuMemsetD8Async_(dst, 0, bytes, d.stream), "cuMemsetD8Async");
}

void synchronize() {
  Driver& d = ready();
  check(d.cuEventRecord_(d.done, d.stream), "cuEventRecord");
  check(d.cuEventSynchronize_(d.done), "cuEventSynchronize");
}

Event::Event() {
  Driver& d = ready();
  CUevent e = nullptr;
  check(d.cuEventCreate_(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  event_ = e;
}

Event::~Event() {
  if (event_) driver().cuEventDestroy_(static_cast<CUevent>(event_));
}

void Event::record() {
  Driver& d = ready();
  check(d.cuEventRecord_(static_cast<CUevent>(event_), d.stream), "cuEventRecord");
}

float Event::elapsed_ms_since(const Event& start) const {
  Driver& d = ready();
  check(d.cuEventSynchronize_(static_cast<CUevent>(event_)), "cuEventSynchronize");
  if (!d.cuEventElapsedTime_) fail(ErrorKind::Runtime, "cuda: the driver has no cuEventElapsedTime");
  float ms = 0;
  check(d.cuEventElapsedTime_(&ms, static_cast<CUevent>(start.event_), static_cast<CUevent>(event_)),
        "cuEventElapsedTime");
  return ms;
}

}  // namespace lt::cuda
