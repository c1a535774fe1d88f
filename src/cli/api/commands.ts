// `chatflow api` (definition).
import { command } from '../core/command.js';
import { DATA } from '../core/flags.js';
import { oneOf } from '../base/values.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];

export const api = command({
  name: 'api',
  summary: 'send a raw request below /api/v1 with the configured URL and key; prints the response body',
  args: [
    { name: '<method>', help: METHODS.join(', '), values: oneOf(METHODS) },
    { name: '<path>', help: 'path below /api/v1, e.g. /variables' },
  ],
  flags: [
    ...DATA,
    { flags: '-d, --data <json>', help: 'JSON body: inline, @file, or - for stdin' },
    { flags: '--query <key=value>', help: 'query parameter (repeatable)', repeatable: true },
  ],
  examples: [
    'chatflow api GET /variables',
    "chatflow api POST /variables --data '{\"name\":\"A\",\"value\":\"1\"}'",
    'chatflow api GET /chatmessage/<chatflowId> --query sessionId=s1 --query order=DESC',
    'chatflow api PATCH /upsert-history --data @ids.json',
  ],
});
