// `chatflow export` (definition).
import { command } from '../core/command.js';
import { CONNECTION, GENERAL, PROGRESS } from '../core/flags.js';
import { CHATFLOW, OUTPUT_FILE } from '../base/values.js';

export const exportCommand = command({
  name: 'export',
  summary: "write chatflows, variables, assistants and each chatflow's messages, feedback and upsert history as JSON lines",
  flags: [
    { flags: '--chatflow <id>', help: 'only this chatflow (repeatable; default: every chatflow the server lists)', values: CHATFLOW, repeatable: true },
    { flags: '--resources <list>', help: 'comma-separated, of: chatflows, variables, assistants, messages, feedback, upsert-history (default: all)' },
    { flags: '-f, --out <file>', help: 'write to this file (default, or -: stdout); it appears only once complete', values: OUTPUT_FILE },
    { flags: '--redact', help: 'mask every e-mail address in the records, and each leadEmail, as [email redacted] (README: Retention and privacy)' },
    ...PROGRESS,
    ...CONNECTION,
    ...GENERAL,
  ],
  examples: [
    'chatflow export --out backup.jsonl                        # everything',
    'chatflow export --chatflow flow1 --resources messages,feedback -f flow1.jsonl',
    'chatflow export | gzip > backup.jsonl.gz',
    'chatflow export --chatflow support-bot --resources messages --redact -f for-analysis.jsonl',
    'chatflow export --url http://flowise:3000 --api-key "$KEY" -f flowise.jsonl && chatflow import flowise.jsonl',
  ],
  notes:
    '\nEach line is {"resource":"message","chatflowid":"…","data":{…}} (chatflows, variables and assistants have\n' +
    "no chatflowid); data is the record as the server lists it, but a chatflow's credential ids are written as\n" +
    '{"name":…,"kind":…} (ids differ between servers). --chatflow narrows the chatflows too; variables and\n' +
    'assistants belong to no chatflow: it does not narrow them (leave them out with --resources).\n',
});
