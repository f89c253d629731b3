// Process CPU time, the clock the kernels' timing loop (timing.cc) and the WebAssembly build's
// peaks are judged by.
#pragma once

#include <cstdint>

namespace attnscope {

/**
 * CPU time of the whole process in ns, every thread together: std::clock (1 us steps on glibc);
 * in the WebAssembly build the host's process.cpuUsage() (user + system, 1 us steps), since
 * Emscripten's clocks count wall time. Defined in timing.cc.
 */
int64_t process_cpu_ns();

}  // namespace attnscope
