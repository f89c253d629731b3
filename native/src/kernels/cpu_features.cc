// CPU feature detection (CPUID + XCR0) and Linux's AMX permission request. Source of the bit
// positions: Intel SDM Vol. 2A, CPUID leaves 01H and 07H, and Vol. 1 section 13.3 (XCR0 state
// components); AMX permission: Linux Documentation/arch/x86/xstate.rst.
#include "kernels/cpu_features.h"
#include "kernels/threads.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <fstream>
#include <mutex>
#include <thread>
#include <utility>

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
#include <cstdlib>
#endif
#if defined(__linux__)
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace attnscope {
namespace {

#if defined(__x86_64__)
uint64_t read_xcr0() {
  uint32_t lo = 0, hi = 0;
  // xgetbv(0); only valid when CPUID.1:ECX.OSXSAVE[27] is set (checked by the caller).
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

/** CPUID 0x80000002..4, leading and trailing spaces trimmed; "" when absent or blank. */
std::string cpuid_brand() {
  unsigned regs[12] = {0};
  if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000004u) return "";
  for (unsigned i = 0; i < 3; ++i) {
    __get_cpuid(0x80000002u + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2], &regs[4 * i + 3]);
  }
  char brand[49];
  std::memcpy(brand, regs, 48);
  brand[48] = '\0';
  std::string s(brand);
  const size_t first = s.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(' ') - first + 1);
}
#endif

#if defined(__EMSCRIPTEN__)
// Node's os.cpus()[0].model, "" when the host has none (a browser).
EM_JS(char*, host_cpu_model_js, (), {
  let model = "";
  try { model = require('os').cpus()[0].model.trim(); } catch (e) {}
  const size = lengthBytesUTF8(model) + 1;
  const out = _malloc(size);
  stringToUTF8(model, out, size);
  return out;
});

std::string host_cpu_model() {
  char* s = host_cpu_model_js();
  std::string model(s);
  std::free(s);
  return model;
}
#endif

/** The first "model name" (x86) or "Model" (arm boards) value of /proc/cpuinfo; "" if none. */
std::string proc_cpuinfo_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0 || line.rfind("Model", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      const size_t start = line.find_first_not_of(' ', colon + 1);
      if (start != std::string::npos) return line.substr(start);
    }
  }
  return "";
}

int affinity_cpus() {
  if (!kThreadsBuilt) return 1;
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
#endif
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

/**
 * Largest data or unified cache cpu0 sees, in bytes: sysfs cache/index<N> (level, type, size
 * "32768K"), then sysconf's L3 and L2; 0 when none answers. See CpuFeatures::last_level_cache_bytes.
 */
uint64_t last_level_cache() {
#if defined(__linux__)
  int best_level = 0;
  uint64_t best = 0;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream level_in(dir + "level"), type_in(dir + "type"), size_in(dir + "size");
    int level = 0;
    std::string type, size;
    if (!(level_in >> level) || !(type_in >> type) || !(size_in >> size)) continue;
    if (type != "Data" && type != "Unified") continue;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(size.c_str(), &end, 10);
    if (end == size.c_str()) continue;
    const uint64_t scale = *end == 'K' ? 1024 : *end == 'M' ? 1024 * 1024 : *end == 'G' ? 1024ull << 20 : 1;
    if (level > best_level) best_level = level, best = n * scale;
  }
  if (best > 0) return best;
#endif
#if defined(__linux__) && defined(_SC_LEVEL3_CACHE_SIZE)
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l3 > 0) return static_cast<uint64_t>(l3);
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (l2 > 0) return static_cast<uint64_t>(l2);
#endif
  return 0;
}

CpuFeatures detect() {
  CpuFeatures f;
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d)) {
    char vendor[13];
    std::memcpy(vendor, &b, 4);
    std::memcpy(vendor + 4, &d, 4);
    std::memcpy(vendor + 8, &c, 4);
    vendor[12] = '\0';
    f.vendor = vendor;
  }
  const unsigned max_leaf = a;
  if (max_leaf >= 1 && __get_cpuid(1, &a, &b, &c, &d)) {
    const int base = (a >> 8) & 0xf;  // Intel SDM / AMD APM: the extended family adds when base is 0xf
    f.family = base == 0xf ? base + int((a >> 20) & 0xff) : base;
  }
  bool ymm_state = false, zmm_state = false;
  if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 27))) {  // OSXSAVE
    const uint64_t xcr0 = read_xcr0();
    ymm_state = (xcr0 & 0x6) == 0x6;        // SSE + AVX state
    zmm_state = (xcr0 & 0xe6) == 0xe6;      // + opmask, ZMM_Hi256, Hi16_ZMM
    f.amx_os_state = (xcr0 & 0x60000) == 0x60000;  // XTILECFG (17) + XTILEDATA (18)
    f.fma = ymm_state && (c & (1u << 12));
  }
  if (max_leaf >= 7 && __get_cpuid_count(7, 0, &a, &b, &c, &d)) {
    const unsigned max_sub = a;
    f.avx2 = ymm_state && (b & (1u << 5));
    f.avx512f = zmm_state && (b & (1u << 16));
    f.avx512bw = f.avx512f && (b & (1u << 30));
    f.avx512vl = f.avx512f && (b & (1u << 31));
    f.avx512dq = f.avx512f && (b & (1u << 17));
    f.avx512_fp16 = f.avx512f && (d & (1u << 23));
    f.amx_bf16 = (d & (1u << 22)) != 0;
    f.amx_tile = (d & (1u << 24)) != 0;
    f.amx_int8 = (d & (1u << 25)) != 0;
    if (max_sub >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d)) {
      f.avx512_bf16 = f.avx512f && (a & (1u << 5));
    }
  }
  f.model = cpuid_brand();
#elif defined(__aarch64__)
  f.neon = true;
#elif defined(__wasm_simd128__)
  f.simd128 = true;
#endif
#if defined(__EMSCRIPTEN__)
  // WebAssembly sees no CPUID and no /proc: the host (Node) names the CPU.
  f.model = host_cpu_model();
#endif
  if (f.model.empty()) f.model = proc_cpuinfo_model();
  if (f.model.empty()) f.model = "unknown CPU";
  f.logical_cores = affinity_cpus();
  f.last_level_cache_bytes = last_level_cache();
  const std::pair<bool, const char*> named[] = {
      {f.avx2, "avx2"},           {f.fma, "fma"},           {f.avx512f, "avx512f"},
      {f.avx512bw, "avx512bw"},   {f.avx512vl, "avx512vl"}, {f.avx512_bf16, "avx512_bf16"},
      {f.avx512_fp16, "avx512_fp16"}, {f.amx_tile, "amx_tile"}, {f.amx_bf16, "amx_bf16"},
      {f.amx_int8, "amx_int8"},   {f.neon, "neon"},         {f.simd128, "simd128"},
  };
  for (const auto& [present, name] : named) {
    if (present) f.names.emplace_back(name);
  }
  return f;
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

std::string request_amx_permission() {
#if !defined(__x86_64__)
  return "AMX is an x86-64 feature; this is not an x86-64 build";
#else
  const CpuFeatures& f = cpu_features();
  if (!f.amx_tile || !f.amx_bf16) return "CPUID lacks amx_tile/amx_bf16 on this CPU";
  if (!f.amx_os_state) return "the OS does not enable AMX tile state (XCR0 bits 17-18 clear)";
#if defined(__linux__)
  // Linux >= 5.16 enables tile data lazily, per process, on request (XFD).
  constexpr long kArchGetXcompPerm = 0x1022;
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  static std::once_flag once;
  static std::string refusal;
  std::call_once(once, [] {
    if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0) {
      refusal = std::string("Linux refused arch_prctl(ARCH_REQ_XCOMP_PERM, XTILEDATA): ") +
                std::strerror(errno);
      return;
    }
    unsigned long mask = 0;
    if (syscall(SYS_arch_prctl, kArchGetXcompPerm, &mask) != 0 ||
        !(mask & (1ul << kXfeatureXtiledata))) {
      refusal = "Linux granted ARCH_REQ_XCOMP_PERM but XTILEDATA is not in the permitted mask";
    }
  });
  return refusal;
#else
  return "";
#endif
#endif
}

}  // namespace attnscope
