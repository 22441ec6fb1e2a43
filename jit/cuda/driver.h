// jit/cuda/driver.h — the CUDA Driver API, loaded with dlopen at run time.
//
// Nothing here links libcuda: the first call dlopens libcuda.so.1, resolves
// the versioned entry points (cuMemAlloc_v2, ...) and initialises device
// `LT_CUDA_DEVICE` (default 0) through its primary context. Without a driver
// or a device every call below that needs one throws lt::Error
// "no CUDA device is available: <why>"; device_available() only reports.
//
// All work goes to one stream per process (launches, async copies, memsets);
// synchronize() waits on an event recorded after the last of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lt::cuda {

using DevicePtr = uint64_t;

/// True when libcuda loaded, cuInit succeeded and the chosen device exists.
bool device_available();
/// Empty when available; else why not (library missing, cuInit error, no device).
std::string device_unavailable_reason();
/// Throws lt::Error("no CUDA device is available: ...") unless available, and
/// makes the device's primary context current on this thread.
void require_device();

struct DeviceInfo {
  std::string name;
  int ordinal = 0;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int driver_version = 0;  ///< e.g. 13000
  int64_t total_memory = 0;
};
const DeviceInfo& device_info();  ///< requires a device
/// "sm_90" for the current device, or the newest NVRTC target not above it.
std::string device_arch();

// Modules and launches.
void* load_module(const std::string& image);  ///< cubin or NUL-free PTX; returns a CUmodule
void* module_function(void* module, const std::string& name);
void launch(void* function, unsigned grid, unsigned block, unsigned shared_bytes, void** params);

// Memory (raw; most code goes through DeviceAllocator).
DevicePtr raw_alloc(size_t bytes);  ///< throws on failure (after the caller may have released its cache)
bool try_raw_alloc(size_t bytes, DevicePtr* out);
void raw_free(DevicePtr ptr);
void copy_to_device(DevicePtr dst, const void* src, size_t bytes);  ///< async on the stream
void copy_to_host(void* dst, DevicePtr src, size_t bytes);          ///< async; host memory valid after synchronize()
void copy_on_device(DevicePtr dst, DevicePtr src, size_t bytes);
void fill_zero(DevicePtr dst, size_t bytes);
void synchronize();  ///< waits for everything queued on the stream

/// Timing on the stream: record two events, then elapsed_ms(a, b) after synchronize().
class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record();
  float elapsed_ms_since(const Event& start) const;  ///< synchronizes on this event

 private:
  void* event_ = nullptr;
};

}  // namespace lt::cuda
