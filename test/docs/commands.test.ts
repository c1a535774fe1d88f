// docs/commands.md is generated from the command definitions: it must be what they make now.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandsMarkdown } from '../../src/cli/docs.js';

describe('docs/commands.md', () => {
  it('is up to date with the command definitions (run `npm run docs`)', () => {
    const written = readFileSync(new URL('../../docs/commands.md', import.meta.url), 'utf8');
    expect(written, 'docs/commands.md is stale: run `npm run docs`').toBe(commandsMarkdown());
  });

  it('lists every command and flag', () => {
    const md = commandsMarkdown();
    for (const heading of ['chatflow variables list', 'chatflow messages delete <chatflowId>', 'chatflow assistants sync', 'chatflow serve', 'chatflow completion <shell>']) {
      expect(md).toContain(`\`${heading}\``);
    }
    expect(md).toContain('`--feedback-type <rating>`');
    expect(md).not.toContain('__complete');
  });
});
