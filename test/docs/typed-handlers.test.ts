// A handler's flags and arguments are typed from its command's definition: a flag renamed in a
// definition fails the compile where the handler reads it, and the registry refuses a handler
// whose parameters do not match its definition. Checked with the TypeScript compiler on the real
// sources, one definition's text changed in memory.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const ROOT = resolve(SRC, '..');
const options = { ...ts.convertCompilerOptionsFromJson(JSON.parse(readFileSync(resolve(ROOT, 'tsconfig.json'), 'utf8')).compilerOptions, ROOT).options, noEmit: true };

// Files parsed once for all the programs below (the libraries and @types/node are most of the work).
const host = ts.createCompilerHost(options);
const parsed = new Map<string, ts.SourceFile | undefined>();
const parse = host.getSourceFile.bind(host);
let edited = new Map<string, string>();
host.getSourceFile = (name, version) => {
  const text = edited.get(resolve(name));
  if (text !== undefined) return ts.createSourceFile(name, text, version);
  if (!parsed.has(name)) parsed.set(name, parse(name, version));
  return parsed.get(name);
};

/** The compile errors of `file`, with `edits` ([path, from, to]) made to the sources first. */
function errorsIn(file: string, edits: [string, string, string][] = []): string[] {
  edited = new Map(
    edits.map(([path, from, to]) => {
      const text = readFileSync(resolve(SRC, path), 'utf8');
      expect(text, `${path} holds ${from}`).toContain(from);
      return [resolve(SRC, path), text.replace(from, to)];
    }),
  );
  const program = ts.createProgram([resolve(SRC, file)], options, host);
  const source = program.getSourceFile(resolve(SRC, file));
  if (!source) throw new Error(`no ${file}`);
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map(
    (d) => `${d.start === undefined ? '' : source.getLineAndCharacterOfPosition(d.start).line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
  );
}

// The compiler's work, not a wait: a loaded machine gets the time it needs.
describe('handlers typed from their definitions', { timeout: 180_000 }, () => {
  it('the sources compile as they are', () => {
    expect(errorsIn('cli/messages/tail.ts')).toEqual([]);
    expect(errorsIn('cli/commands.ts')).toEqual([]);
  });

  it('a flag renamed in a definition fails the compile in the handler that reads it', () => {
    const errors = errorsIn('cli/messages/tail.ts', [['cli/messages/commands.ts', "flags: '-f, --follow'", "flags: '-f, --watch'"]]);
    expect(errors.join('\n')).toMatch(/Property 'follow' does not exist/);
  });

  it("a flag of a shared group renamed fails the compile in every handler's use of it", () => {
    const errors = errorsIn('cli/core/handler-common.ts', [['cli/core/flags.ts', "flags: '--dry-run'", "flags: '--dryrun'"]]);
    expect(errors.join('\n')).toMatch(/Property 'dryRun' does not exist/);
  });

  it("a value set's type reaches the handler: --order is asc or desc, not any string", () => {
    const order = "Flags<typeof messages, 'list'>['order']";
    const errors = errorsIn('cli/messages/handlers.ts', [['cli/messages/handlers.ts', 'export async function list(', `export const ok: ${order} = 'desc';\nexport const bad: ${order} = 'sideways';\nexport async function list(`]]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/'"sideways"' is not assignable/);
  });

  it('the registry refuses a handler bound to a definition whose arguments it does not take', () => {
    const errors = errorsIn('cli/commands.ts', [['cli/commands.ts', 'get: () => variablesH().then((m) => m.get)', 'get: () => variablesH().then((m) => m.list)']]);
    expect(errors.length).toBeGreaterThan(0);
  });

  it('the registry refuses a group with a subcommand left unbound', () => {
    const errors = errorsIn('cli/commands.ts', [['cli/commands.ts', '    show: () => chatsH().then((m) => m.show),\n', '']]);
    expect(errors.join('\n')).toMatch(/show/);
  });
});
