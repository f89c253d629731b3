// Typed wrappers of the addon's cuda functions (placeholder until they land).
export {};
