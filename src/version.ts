// The package version, read once from package.json (two levels above dist/ and src/).
import { createRequire } from 'node:module';

export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
