// Typed wrappers of the addon's allocator functions (placeholder until they land).
export {};
