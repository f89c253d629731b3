/**
 * What Node cannot tell about the process's own output (native/src/napi/io.cc).
 */
import { addonIfLoaded } from './binding';

interface RawIo {
  /** Native addon only: the WebAssembly build has no poll(2). */
  outputReaderGone?(fd: number): boolean;
}

/**
 * True when `fd` (1: standard output) is a pipe or socket whose reader has gone (`| head -1`
 * once head exited, a pager quit): a write would fail with EPIPE. Node says so only at the next
 * write; this asks poll(2) without writing or blocking. False when it cannot tell: the native
 * addon is not loaded (never loads it) or is the WebAssembly build, on Windows, or for a file
 * or terminal.
 * @throws TypeError when fd is not a number.
 */
export function outputReaderGone(fd: number): boolean {
  if (typeof fd !== 'number') throw new TypeError(`fd must be a number, got ${typeof fd}`);
  return addonIfLoaded<RawIo>()?.outputReaderGone?.(fd) === true;
}
