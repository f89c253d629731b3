/**
 * Argument checks shared by the native wrappers: TypeError for a wrong type, RangeError for a
 * value outside its range, each naming the argument (the addon's C++ never sees a bad value).
 */

/** The largest int32: sizes and counts the C++ side holds in `int`. */
export const INT32_MAX = 2 ** 31 - 1;

/** Checks an integer argument; TypeError when not an integer, RangeError outside [min, max]. */
export function intArg(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`${name} must be an integer, got ${typeof value === 'number' ? value : typeof value}`);
  }
  if (value < min || value > max) throw new RangeError(`${name} must be in [${min}, ${max}], got ${value}`);
  return value;
}

