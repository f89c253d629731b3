// Typed wrappers of the addon's kernels functions (placeholder until they land).
export {};
