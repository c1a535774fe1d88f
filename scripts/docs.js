// Writes docs/commands.md from the command definitions (the built dist/cli/docs.js).
import { writeFileSync } from 'node:fs';
import { commandsMarkdown } from '../dist/cli/docs.js';

writeFileSync(new URL('../docs/commands.md', import.meta.url), commandsMarkdown());
