// `chatflow demo` (definition).
import { command } from '../core/command.js';
import { DATA, PROGRESS } from '../core/flags.js';

export const demo = command({
  name: 'demo',
  aliases: ['seed'],
  summary: 'fill the server with sample data (safe to run twice: nothing is added twice)',
  flags: [...DATA, { flags: '--messages <n>', help: 'messages in the first chatflow (the others get 60 each)', default: '120' }, ...PROGRESS],
  examples: ['chatflow demo && chatflow messages list demo-support-bot', 'chatflow demo --messages 1000000   # a large data set'],
});
