/**
 * The typed entry to the native addon: every other folder (runner, scripts) imports native code
 * through here; only tests reach a part's file directly.
 * Each export validates its arguments and throws TypeError (wrong type) or RangeError (bad
 * size or value) naming the argument before anything reaches C++.
 * One file per part: kernels (flash forward, paged decode, reference, timing), allocator
 * (page pool), peaks (machine ceilings), cuda (the optional GPU library), io (whether stdout's reader has gone).
 */
export { loadAddon, loadedBuild, nativeFileCandidates, NativeMissingError, WASM_FILE, type LoadedBuild, type NativeBuild } from './binding';
export * from './kernels';
export * from './allocator';
export * from './simulator';
export * from './peaks';
export * from './cuda';
export * from './io';
