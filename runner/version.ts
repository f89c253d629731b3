/** The runner's version as runs record it (core/protocol/run.ts runHeader; kept in step with package.json by a test). */
export const TOOL_VERSION = '0.1.0';
