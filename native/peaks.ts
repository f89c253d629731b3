// Typed wrappers of the addon's peaks functions (placeholder until they land).
export {};
