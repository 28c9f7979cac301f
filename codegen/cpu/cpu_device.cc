#include "codegen/cpu/cpu_device.h"

#include <unistd.h>

#include <fstream>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace xtune::cpu {
namespace {

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "model name")) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
      }
    }
  }
  return "unknown";
}

// Cache size from sysfs ("32768K"), 0 when unknown.
int64_t SysfsCacheBytes(int index) {
  std::ifstream in(absl::StrCat("/sys/devices/system/cpu/cpu0/cache/index",
                                index, "/size"));
  std::string text;
  if (!(in >> text) || text.empty()) return 0;
  int64_t scale = 1;
  char unit = text.back();
  if (unit == 'K') scale = 1024;
  if (unit == 'M') scale = 1024 * 1024;
  if (scale != 1) text.pop_back();
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return 0;
    value = value * 10 + (c - '0');
  }
  return value * scale;
}

}  // namespace

std::string CpuDevice::Description() const {
  return absl::StrCat("CPU: ", model, ", ISA: ", isa, ", Threads: ", threads,
                      ", L2: ", l2_bytes / 1024, " KiB, L3: ",
                      l3_bytes / (1024 * 1024), " MiB");
}

CpuDevice DetectCpu(int threads) {
  CpuDevice d;
  d.model = CpuModel();
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    d.isa = "avx512";
    d.simd_floats = 16;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    d.isa = "avx2";
    d.simd_floats = 8;
  } else if (__builtin_cpu_supports("sse4.1")) {
    d.isa = "sse4";
    d.simd_floats = 4;
  } else {
    d.isa = "generic";
    d.simd_floats = 4;
  }
  int hw = static_cast<int>(std::thread::hardware_concurrency());
  d.threads = threads > 0 ? threads : (hw > 0 ? hw : 1);
  // sysfs first: sysconf's figures can be wrong in virtual machines.
  long l2 = SysfsCacheBytes(2);
  long l3 = SysfsCacheBytes(3);
  if (l2 <= 0) l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (l3 <= 0) l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  d.l2_bytes = l2 > 0 ? l2 : 512 * 1024;
  d.l3_bytes = l3 > 0 ? l3 : 8 * 1024 * 1024;
  return d;
}

}  // namespace xtune::cpu
