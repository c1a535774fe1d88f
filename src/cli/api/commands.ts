// `chatflow api` (definition).
import { command } from '../core/command.js';
import { DATA } from '../core/flags.js';
import { oneOf } from '../base/values.js';
import { API_PREFIX, routePath } from '../../schema/paths.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];

export const api = command({
  name: 'api',
  summary: `send a raw request below ${API_PREFIX} with the configured URL and key; prints the response body`,
  args: [
    { name: '<method>', help: METHODS.join(', '), values: oneOf(METHODS) },
    { name: '<path>', help: `path below ${API_PREFIX}, e.g. ${routePath('listVariables')}` },
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
