// Types of profileValidator.generated.js (scripts/profile-validator.mjs writes it; ajv standalone validation code).
import type { ValidateFunction } from 'ajv';

/** schemas/attn-profile.schema.json's validator, compiled as profileSchema.ts's ajv options say (allErrors, verbose). */
export declare const profile: ValidateFunction;
/** Each anyOf with a number or integer branch: its parent schema's validator, keyed by the anyOf's schemaPath ("#/properties/kv_cache/properties/memory_gib/anyOf"). */
export declare const anyOfBySchemaPath: Record<string, ValidateFunction>;
