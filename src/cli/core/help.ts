// How help reads: a command's own flags and examples first, the flags every command shares after
// them under their own heading (as gh does), examples wrapped between words (a long one goes on as
// a shell continuation line, so it still copies and runs), and the top level short: the commands
// first, the shared flags named in a paragraph (each command's --help describes them).
import { Help, Option, type AddHelpTextContext, type Command } from 'commander';

export const GLOBAL_HEADING = 'Global options:';

/** The help option, among the shared flags. */
export const helpOption = (): Option => new Option('-h, --help', 'display help for command').helpGroup(GLOBAL_HEADING);

/** The width help is written to (80 off a terminal), as commander has it for the stream. */
function widthOf(context: AddHelpTextContext): number {
  const out = context.command.configureOutput();
  return (context.error ? out.getErrHelpWidth?.() : out.getOutHelpWidth?.()) ?? 80;
}

/** Words of a shell line: white space outside quotes splits it. */
function shellWords(line: string): string[] {
  return line.match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g) ?? [];
}

/**
 * One example in at most `width` columns: a trailing `# comment` goes on its own line above it,
 * and the command is broken between words with ` \` (never inside a word or a quoted value).
 */
function exampleLines(example: string, width: number): string[] {
  if (example.length + 2 < width) return [`  ${example}`];
  const hash = example.search(/\s+# /);
  const command = hash < 0 ? example : example.slice(0, hash).trimEnd();
  const out = hash < 0 ? [] : [`  ${example.slice(hash).trim()}`];
  let line = ' ';
  for (const word of shellWords(command)) {
    if (line.trim() !== '' && line.length + 1 + word.length + 2 >= width) {
      out.push(`${line} \\`);
      line = '     ';
    }
    line += ` ${word}`;
  }
  out.push(line);
  return out;
}

/** The examples section, for `addHelpText('after', …)`: wrapped to the width help is written to. */
export function examples(lines: readonly string[]): (context: AddHelpTextContext) => string {
  return (context) => examplesText(lines, widthOf(context));
}

const examplesText = (lines: readonly string[], width: number) => `\nExamples:\n${lines.flatMap((l) => exampleLines(l, width)).join('\n')}\n`;

/** A command's examples and notes, which its help shows after its own flags, before the shared ones. */
const extras = new WeakMap<Command, { examples?: readonly string[]; notes?: string }>();

export function addExamples(cmd: Command, examples: readonly string[] | undefined, notes: string | undefined): void {
  if (examples || notes) extras.set(cmd, { examples, notes });
}

/** Words joined by `, ` in lines indented by two, at most `width` wide. */
function paragraph(words: string[], width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const [i, word] of words.entries()) {
    const next = `${word}${i < words.length - 1 ? ',' : ''}`;
    if (line && line.length + 1 + next.length >= width) {
      lines.push(line);
      line = '';
    }
    line = line ? `${line} ${next}` : `  ${next}`;
  }
  return line ? [...lines, line] : lines;
}

/** `chatflow --help`: usage, what it is, the commands, then the shared flags in a paragraph. */
function topHelp(cmd: Command, helper: Help): string {
  const width = helper.helpWidth ?? 80;
  const commands = helper.visibleCommands(cmd).map((sub) => [helper.subcommandTerm(sub).replace(' [options]', ''), helper.subcommandDescription(sub)] as const);
  const termWidth = Math.max(...commands.map(([term]) => term.length));
  const flags = [...cmd.options.filter((o) => !o.hidden), helper.visibleOptions(cmd).find((o) => o.long === '--help')]
    .filter((o): o is Option => o !== undefined)
    .map((o) => o.flags.replace(/\s*[<[].*$/, '').replace(/,\s*/, '/'));
  return [
    `${helper.styleTitle('Usage:')} chatflow [global options] <command> [options]`,
    '',
    helper.boxWrap(helper.commandDescription(cmd), width),
    '',
    helper.styleTitle('Commands:'),
    ...commands.map(([term, description]) => helper.formatItem(term, termWidth, description, helper)),
    '',
    helper.styleTitle('Global options (before or after the command; its --help describes them):'),
    ...paragraph(flags, width),
    '',
  ].join('\n');
}

/** commander's layout, a group's commands first and a command's examples before the shared flags; the top level's own. */
export function formatHelp(cmd: Command, helper: Help): string {
  if (!cmd.parent) return topHelp(cmd, helper);
  let text = Help.prototype.formatHelp.call(helper, cmd, helper);
  // A group's commands (commander's last section) before its options, as at the top level.
  const commands = text.indexOf(`\n${helper.styleTitle('Commands:')}\n`);
  const options = text.indexOf(`\n${helper.styleTitle(GLOBAL_HEADING)}\n`);
  if (commands > 0 && options > 0 && options < commands) {
    text = `${text.slice(0, options)}${text.slice(commands).replace(/\n*$/, '\n')}${text.slice(options, commands)}\n`;
  }
  const extra = extras.get(cmd);
  if (!extra) return text;
  const width = helper.helpWidth ?? 80;
  // Notes are prose: their lines are joined and wrapped to the width, between words.
  const notes = extra.notes?.trim().split(/\n{2,}/).map((p) => helper.boxWrap(p.replace(/\s*\n\s*/g, ' '), width - 1));
  const own = `${extra.examples ? examplesText(extra.examples, width).slice(1) : ''}${notes ? `${extra.examples ? '\n' : ''}${notes.join('\n\n')}\n` : ''}\n`;
  const at = text.indexOf(`${helper.styleTitle(GLOBAL_HEADING)}\n`);
  return at < 0 ? `${text}${own}` : `${text.slice(0, at)}${own}${text.slice(at)}`;
}
