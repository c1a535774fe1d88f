// commander's usage errors (an unknown flag or command, a bad or missing value) as the CLI's other
// errors read: one line, `chatflow: <command>: what was wrong`, in flags rather than commander's
// "options", and what to do (the command's --help, or commander's guess at what was meant).
import type { Command } from 'commander';
import { walk } from './walk.js';

/** `-o, --output <format>` → `-o/--output`. */
const flagOf = (flags: string) => flags.replace(/\s*[<[].*$/, '').replace(/,\s*/g, '/');

/** commander's messages (without `error: `) and their words here; the first match wins. */
const REWORD: [RegExp, (...m: string[]) => string][] = [
  [/^unknown option '(.+)'$/, (flag) => `unknown flag ${flag}`],
  [/^unknown command '(.+)'$/, (name) => `unknown command ${name}`],
  [/^option '(.+?)' argument missing$/, (flags) => `${flagOf(flags)} needs a value`],
  [/^required option '(.+?)' not specified$/, (flags) => `missing ${flagOf(flags)}`],
  [/^missing required argument '(.+)'$/, (name) => `missing <${name}>`],
  // A value set's refusal: `Allowed choices are a, b.` (commander's words for our `oneOf`).
  [/^option '(.+?)' argument '(.*)' is invalid\. Allowed choices are (.+)\.$/s, (flags, value, choices) => `${flagOf(flags)} ${value}: expected one of ${choices}`],
  [/^option '(.+?)' argument '(.*)' is invalid\.\s*(.*)$/s, (flags, value, why) => `${flagOf(flags)} ${value} is invalid${why ? `: ${why}` : ''}`],
  [/^command-argument value '(.*)' is invalid for argument '(.+?)'\. Allowed choices are (.+)\.$/s, (value, name, choices) => `<${name}> ${value}: expected one of ${choices}`],
  [/^too many arguments(?: for '.+?')?\. Expected (\d+) arguments? but got (\d+)\.$/, (want, got) => `${got} arguments given, ${want === '0' ? 'none' : `at most ${want}`} expected (quote a value with spaces)`],
];

/**
 * The line (after `chatflow: `) for commander's usage error `message`, raised while parsing
 * `args` (the words after `chatflow`): led by the command the words reached, ending with what to
 * do. An unknown message keeps commander's words.
 */
export function usageLine(program: Command, args: string[], message: string): string {
  const [first = '', ...rest] = message.replace(/^error:\s*/, '').split('\n');
  const hit = REWORD.find(([re]) => re.test(first));
  const what = hit ? hit[1](...first.match(hit[0])!.slice(1)) : first;
  // `(Did you mean one of list, ls?)`, commander's guess.
  const guess = rest.join(' ').match(/\(Did you mean (?:one of )?(.+)\?\)/)?.[1];
  const path = walk(program, args).path.join(' ');
  const help = `chatflow ${path ? `${path} ` : ''}--help`;
  const todo = guess ? `did you mean ${guess.replace(/, /g, ' or ')}? (${help})` : `see ${help}`;
  return `${path ? `${path}: ` : ''}${what}; ${todo}`;
}
