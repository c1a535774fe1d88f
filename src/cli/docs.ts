// docs/commands.md, generated from the command definitions (`npm run docs` writes it; a test fails
// when the file is stale). Every command, its arguments, flags (with their values) and examples.
import { COMMANDS } from './commands.js';
import type { CommandDef } from './core/command.js';
import type { FlagDef } from './core/flag-def.js';
import { CONNECTION, GENERAL, OUTPUT } from './core/flags.js';
import type { ValueSet } from './base/values.js';
import { DESCRIPTION, EXAMPLES, EXIT_CODES_HELP } from './program.js';

function values(set: ValueSet | undefined): string {
  if (!set) return '';
  switch (set.kind) {
    case 'list':
      return set.items.map((c) => `\`${c.value}\``).join(', ');
    case 'live':
      return `${set.live} ids (completed from the server)`;
    case 'profiles':
      return 'a saved profile';
    case 'files':
      return 'a file';
  }
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function flagRows(flags: readonly FlagDef[]): string[] {
  return flags.map((f) => {
    const extra = [values(f.values), f.repeatable ? 'repeatable' : '', f.default !== undefined ? `default \`${f.default}\`` : '', f.env ? `env \`${f.env}\`` : '', f.required ? 'required' : '']
      .filter(Boolean)
      .join('; ');
    return `| \`${cell(f.flags)}\` | ${cell(f.help)}${extra ? ` (${cell(extra)})` : ''} |`;
  });
}

/** Flag groups many commands carry: listed once, named where a command has them. */
const GROUPS: [string, readonly FlagDef[]][] = [
  ['connection', CONNECTION],
  ['output', OUTPUT],
  ['general', GENERAL],
];

function flagTable(flags: readonly FlagDef[]): string[] {
  return ['| flag | meaning |', '|---|---|', ...flagRows(flags), ''];
}

function section(def: CommandDef, path: string[]): string[] {
  if (def.hidden) return [];
  const full = [...path, def.name];
  const out: string[] = [];
  const args = (def.args ?? []).map((a) => a.name).join(' ');
  out.push(`${'#'.repeat(Math.min(full.length + 1, 4))} \`chatflow ${full.join(' ')}${args ? ` ${args}` : ''}\``, '');
  out.push(`${def.summary[0]!.toUpperCase()}${def.summary.slice(1)}.` + (def.aliases?.length ? ` Aliases: ${def.aliases.map((a) => `\`${a}\``).join(', ')}.` : ''), '');
  const described = (def.args ?? []).filter((a) => a.help || a.values);
  if (described.length) {
    out.push(...described.map((a) => `- \`${a.name}\`: ${[a.help, values(a.values)].filter(Boolean).join('; ')}`), '');
  }
  const flags = def.flags ?? [];
  const groups = GROUPS.filter(([, g]) => g.every((f) => flags.includes(f)));
  const own = flags.filter((f) => !groups.some(([, g]) => g.includes(f)));
  if (own.length) out.push(...flagTable(own));
  if (groups.length) out.push(`And the ${groups.map(([name]) => name).join(', ')} flags.`, '');
  if (def.examples?.length) out.push('```sh', ...def.examples, '```', '');
  if (def.notes) out.push(def.notes.trim(), '');
  for (const sub of def.commands ?? []) out.push(...section(sub, full));
  return out;
}

export function commandsMarkdown(): string {
  const lines = [
    '# Command reference',
    '',
    '<!-- Generated from src/cli/*/commands.ts by `npm run docs`; edit the definitions, not this file. -->',
    '',
    DESCRIPTION,
    '',
    '```sh',
    ...EXAMPLES,
    '```',
    '',
    '```',
    EXIT_CODES_HELP.trim(),
    '```',
    '',
    ...GROUPS.flatMap(([name, flags]) => [`## ${name[0]!.toUpperCase()}${name.slice(1)} flags`, '', ...flagTable(flags)]),
    ...COMMANDS.flatMap((def) => section(def, [])),
  ];
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}
