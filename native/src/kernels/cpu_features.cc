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

#if defined(__EMSCRIPTEN__)
// A text file's contents through Node's fs ("" when unreadable or in a browser): WebAssembly has
// no file system of its own, and Linux's sysfs is where the cache sizes are.
EM_JS(char*, read_text_file_js, (const char* path), {
  let text = "";
  try { text = require('fs').readFileSync(UTF8ToString(path), 'utf8'); } catch (e) {}
  const size = lengthBytesUTF8(text) + 1;
  const out = _malloc(size);
  stringToUTF8(text, out, size);
  return out;
});
#endif

/** A small text file's contents, "" when absent or unreadable (Node's fs in WebAssembly). */
std::string read_text_file(const std::string& path) {
#if defined(__EMSCRIPTEN__)
  char* s = read_text_file_js(path.c_str());
  std::string text(s);
  std::free(s);
  return text;
#else
  std::ifstream in(path);
  std::string text, line;
  while (std::getline(in, line)) text += line + "\n";
  return text;
#endif
}

/** The first whitespace-separated word of `text`, "" when none. */
std::string first_word(const std::string& text) {
  const size_t b = text.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return text.substr(b, text.find_first_of(" \t\r\n", b) - b);
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
  const CacheSize llc = last_level_cache_of("/sys/devices/system/cpu/cpu0/cache", cpuid_cache_leaves());
  f.last_level_cache_bytes = llc.bytes;
  f.last_level_cache_level = llc.level;
  f.last_level_cache_source = llc.source;
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

CacheSize last_level_cache_of(const std::string& sysfs_dir, const std::vector<CacheLeaf>& leaves) {
  CacheSize best;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = sysfs_dir + "/index" + std::to_string(i) + "/";
    const std::string type = first_word(read_text_file(dir + "type"));
    const std::string size = first_word(read_text_file(dir + "size"));
    const std::string level_text = first_word(read_text_file(dir + "level"));
    if (type != "Data" && type != "Unified") continue;
    char* end = nullptr;
    const long level = std::strtol(level_text.c_str(), &end, 10);
    if (end == level_text.c_str() || *end != '\0' || level < 1) continue;
    const unsigned long long n = std::strtoull(size.c_str(), &end, 10);
    if (end == size.c_str()) continue;
    const std::string unit(end);
    const uint64_t scale = unit.empty() ? 1 : unit == "K" ? 1024 : unit == "M" ? 1024 * 1024 : unit == "G" ? 1024ull << 20 : 0;
    if (scale == 0 || n == 0) continue;  // a size it cannot parse skips that entry
    if (level > best.level) best = {static_cast<int>(level), n * scale, "sysfs"};
  }
  if (best.level > 0) return best;
  for (const CacheLeaf& leaf : leaves) {
    const uint32_t type = leaf.eax & 0x1f;
    if (type == 0) break;
    if (type != 1 && type != 3) continue;  // data or unified
    const int level = static_cast<int>((leaf.eax >> 5) & 0x7);
    const uint64_t line = (leaf.ebx & 0xfff) + 1;
    const uint64_t partitions = ((leaf.ebx >> 12) & 0x3ff) + 1;
    const uint64_t ways = ((leaf.ebx >> 22) & 0x3ff) + 1;
    const uint64_t sets = uint64_t{leaf.ecx} + 1;
    if (level > best.level) best = {level, ways * partitions * line * sets, "cpuid"};
  }
  return best;
}

std::vector<CacheLeaf> cpuid_cache_leaves() {
  std::vector<CacheLeaf> out;
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return out;
  const unsigned max_leaf = a;
  char vendor[13];
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  vendor[12] = '\0';
  unsigned leaf = 0;
  if (std::strcmp(vendor, "AuthenticAMD") == 0 || std::strcmp(vendor, "HygonGenuine") == 0) {
    // Fn8000_001D exists only where Fn8000_0001 ECX[22] TopologyExtensions is set (AMD APM Vol. 3).
    if (__get_cpuid_max(0x80000000u, nullptr) >= 0x8000001Du && __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & (1u << 22))) leaf = 0x8000001Du;
  } else if (max_leaf >= 4) {
    leaf = 4;
  }
  for (unsigned sub = 0; leaf != 0 && sub < 16; ++sub) {
    __cpuid_count(leaf, sub, a, b, c, d);
    if ((a & 0x1f) == 0) break;
    out.push_back({a, b, c});
  }
#endif
  return out;
}

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
