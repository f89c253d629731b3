// The kernels' last-error slot and the SIMD-path check (internal.h).
#include <string>

#include "kernels/internal.h"

namespace attnscope {
namespace detail {
namespace {
thread_local std::string g_last_error;
}  // namespace

Status fail(Status status, const std::string& message) {
  g_last_error = message;
  return status;
}

Status ok() {
  g_last_error.clear();
  return Status::kOk;
}

Status check_simd(SimdPath path) {
  if (!simd_path_supported(path)) {
    return fail(Status::kUnsupported, std::string("SIMD path ") + simd_path_name(path) +
                                          " is not supported by this CPU or build");
  }
  return Status::kOk;
}

}  // namespace detail

const char* last_error() { return detail::g_last_error.c_str(); }

}  // namespace attnscope
