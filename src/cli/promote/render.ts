// A promotion plan as text for a terminal: one line per record, one more per changed field.
import type { ChalkInstance } from 'chalk';
import { stdoutPaint } from '../base/color.js';
import type { Change, PlanAction, PlanEntry } from './plan.js';
import { MASK } from '../base/secrets.js';
import { displayWidth, padEnd, plural, sanitize, truncate } from '../render/text.js';

const SIGN: Record<PlanAction, string> = { create: '+', update: '~', delete: '-', conflict: '!', 'only-in-target': '?', unchanged: '=' };
const WORD: Record<PlanAction, string> = {
  create: 'create',
  update: 'update',
  delete: 'delete',
  conflict: 'conflict',
  'only-in-target': 'only in target',
  unchanged: 'unchanged',
};

function shown(v: unknown, max = 40): string {
  if (v === undefined || v === null) return '(none)';
  if (v === MASK) return MASK;
  return truncate(sanitize(typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v)), max);
}

function colourFor(chalk: ChalkInstance, action: PlanAction): (s: string) => string {
  switch (action) {
    case 'create':
      return chalk.green;
    case 'update':
      return chalk.yellow;
    case 'delete':
      return chalk.red;
    case 'conflict':
      return chalk.magenta;
    default:
      return chalk.dim;
  }
}

export function summary(entries: PlanEntry[]): string {
  const count = (a: PlanAction) => entries.filter((e) => e.action === a).length;
  const parts = [`${count('create')} to create`, `${count('update')} to update`];
  if (count('delete')) parts.push(`${count('delete')} to delete`);
  parts.push(`${count('unchanged')} unchanged`);
  if (count('only-in-target')) parts.push(`${count('only-in-target')} only in the target (kept; --prune deletes them)`);
  if (count('conflict')) parts.push(`${plural(count('conflict'), 'conflict')}`);
  return parts.join(', ');
}

/** The plan as text for a terminal: one line per record, one more per changed field. */
export function renderPlan(entries: PlanEntry[], head: string, opts: { width: number; color: boolean }): string {
  const width = Math.max(40, opts.width) - 1;
  const chalk = opts.color ? stdoutPaint() : undefined;
  const paint = (a: PlanAction, s: string) => (chalk ? colourFor(chalk, a)(s) : s);
  const nameW = Math.min(32, Math.max(4, ...entries.map((e) => displayWidth(sanitize(e.name)))));
  const lines = [chalk ? chalk.bold(head) : head, ''];
  if (entries.length === 0) lines.push('  (nothing on either side)');
  for (const e of entries) {
    const name = padEnd(truncate(sanitize(e.name), nameW), nameW);
    const word = padEnd(WORD[e.action], 15);
    const start = `  ${SIGN[e.action]} ${name}  ${word}`;
    let tail = '';
    let below: Change[] = [];
    if (e.action === 'create' && e.changes?.length) {
      // On the line when it fits, else one field a line like an update.
      tail = e.changes.map((c) => `${c.field.replace(/^details\./, '')} ${shown(c.to, 32)}`).join(', ');
      if (displayWidth(start) + 1 + displayWidth(tail) > width) {
        tail = '';
        below = e.changes;
      }
    }
    if (e.action === 'conflict' || e.action === 'only-in-target') tail = e.note ?? '';
    if (e.action === 'update') below = e.changes ?? [];
    lines.push(paint(e.action, truncate(`${start}${tail ? ` ${tail}` : ''}`.trimEnd(), width)));
    for (const c of below) {
      const text = e.action === 'create' ? `      ${c.field}: ${shown(c.to)}` : `      ${c.field}: ${shown(c.from)} → ${shown(c.to)}`;
      lines.push(truncate(text, width));
    }
  }
  lines.push('', summary(entries));
  return `${lines.join('\n')}\n`;
}

/**
 * An applied change as sync reports it: `✓ updated variable X (value)`, or `✗ … failed: why`;
 * `brief` names a changed field shorter (a chatflow's paths by their node), once each.
 */
export function appliedLine(e: PlanEntry, noun: string, paint: ChalkInstance | undefined, brief: (field: string) => string = (f) => f): string {
  if (e.result === 'failed') {
    const line = `  ✗ ${e.action} ${noun} ${sanitize(e.name)} failed: ${sanitize(e.error ?? '')}`;
    return `${paint ? paint.red(line) : line}\n`;
  }
  const fields = e.action === 'update' ? ` (${[...new Set((e.changes ?? []).map((c) => brief(c.field)))].join(', ')})` : '';
  const line = `  ✓ ${e.result} ${noun} ${sanitize(e.name)}${fields}`;
  return `${paint ? paint.green(line) : line}\n`;
}
