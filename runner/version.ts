/** The tool's name and version as runs record them (kept in step with package.json by a test). */
export const TOOL_NAME = 'attnscope';
export const TOOL_VERSION = '0.1.0';
