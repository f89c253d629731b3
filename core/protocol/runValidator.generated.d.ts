// Types of runValidator.generated.js (scripts/run-validator.mjs writes it; ajv standalone validation code).
import type { ValidateFunction } from 'ajv';

/** schemas/run.schema.json's validator (a run file: a run or a sweep point), reporting every error (allErrors). */
export declare const run: ValidateFunction;
