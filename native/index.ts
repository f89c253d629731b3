/**
 * The typed entry to the native addon: every other folder imports native code through here.
 * Each export validates its arguments and throws TypeError (wrong type) or RangeError (bad
 * size or value) naming the argument before anything reaches C++.
 */
export { loadAddon } from './binding';
