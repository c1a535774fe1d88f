// Every route's validators compiled ahead of time, by their `validatorKey`: none here; in the
// bundle's service (server.cjs) scripts/bundle.js puts ajv's standalone code of them all in this
// module's place (validation.ts).
import type { ValidateFunction } from 'ajv';

export const precompiled: Readonly<Record<string, ValidateFunction>> = {};
