import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXIT, UsageError, exitCodeOf } from '../../src/cli/base/errors.js';
import { printError } from '../../src/cli/core/output.js';
import { Interrupted, askText, canPrompt, requireValue } from '../../src/cli/base/prompts.js';
import { sink } from './helpers.js';

vi.mock('@inquirer/prompts', () => ({
  input: vi.fn(async () => {
    const err = new Error('User force closed the prompt with SIGINT');
    err.name = 'ExitPromptError';
    throw err;
  }),
}));

function fakeTty(on: boolean) {
  const stdin = Object.getOwnPropertyDescriptor(process.stdin, 'isTTY');
  const stderr = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
  Object.defineProperty(process.stdin, 'isTTY', { value: on, configurable: true });
  Object.defineProperty(process.stderr, 'isTTY', { value: on, configurable: true });
  return () => {
    if (stdin) Object.defineProperty(process.stdin, 'isTTY', stdin);
    else delete (process.stdin as { isTTY?: boolean }).isTTY;
    if (stderr) Object.defineProperty(process.stderr, 'isTTY', stderr);
    else delete (process.stderr as { isTTY?: boolean }).isTTY;
  };
}

afterEach(() => vi.unstubAllEnvs());

describe('canPrompt', () => {
  it('needs TTYs, no --no-input and no CI', () => {
    const restore = fakeTty(true);
    try {
      expect(canPrompt({}, {})).toBe(true);
      expect(canPrompt({ input: false }, {})).toBe(false);
      expect(canPrompt({}, { CI: 'true' })).toBe(false);
    } finally {
      restore();
    }
    const restore2 = fakeTty(false);
    try {
      expect(canPrompt({}, {})).toBe(false);
    } finally {
      restore2();
    }
  });
});

describe('requireValue', () => {
  it('returns a given value without prompting', async () => {
    const prompt = vi.fn(async () => 'asked');
    expect(await requireValue('name', 'given', { prompt, flag: '--name' })).toBe('given');
    expect(prompt).not.toHaveBeenCalled();
  });
  it('asks when it can, else a usage error naming the flag', async () => {
    vi.stubEnv('CI', undefined);
    const restore = fakeTty(true);
    try {
      expect(await requireValue('name', undefined, { prompt: async () => 'asked', flag: '--name' })).toBe('asked');
    } finally {
      restore();
    }
    const err = await requireValue('name', '', { prompt: async () => 'asked', flag: '--name' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe('missing --name: pass it, or run in a terminal to be asked');
    expect(exitCodeOf(err)).toBe(EXIT.usage);
  });
});

describe('Ctrl-C', () => {
  it('surfaces as Interrupted: exit 130, nothing printed', async () => {
    const err = await askText('Name?').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Interrupted);
    expect(exitCodeOf(err)).toBe(130);
    const out = sink();
    expect(printError(err, { format: 'json' }, out)).toBe(130);
    expect(out.text()).toBe('');
  });
});
