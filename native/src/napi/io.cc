// N-API bridge for what Node cannot tell about the process's own output: whether the reader of
// a pipe or socket it writes to has gone (`attnscope simulate ... | head -1` once head has
// exited), before the next write would fail with EPIPE.
#include <napi.h>

#if !defined(_WIN32)
#include <poll.h>
#endif

namespace {

// outputReaderGone(fd) -> true when fd is a pipe or socket whose reading end is closed: poll(2)
// reports POLLERR on a pipe's write end once it has no reader (Linux fs/pipe.c pipe_poll) and
// POLLHUP on a socket whose peer has closed. Never blocks (timeout 0). False on Windows, where
// no such test exists, and for a file or terminal.
Napi::Value OutputReaderGone(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsNumber()) throw Napi::TypeError::New(env, "fd must be a number");
#if defined(_WIN32)
  return Napi::Boolean::New(env, false);
#else
  pollfd p{info[0].As<Napi::Number>().Int32Value(), POLLOUT, 0};
  const int ready = poll(&p, 1, 0);
  return Napi::Boolean::New(env, ready == 1 && (p.revents & (POLLERR | POLLHUP)) != 0);
#endif
}

}  // namespace

Napi::Object InitIo(Napi::Env env, Napi::Object exports) {
  exports.Set("outputReaderGone", Napi::Function::New(env, OutputReaderGone, "outputReaderGone"));
  return exports;
}
