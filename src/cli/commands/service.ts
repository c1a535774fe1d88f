// `chatflow service` (definitions): the local service the embedded default starts by itself.
import type { CommandDef } from '../core/command.js';
import { GENERAL, OUTPUT } from '../core/flags.js';

const load = () => import('../handlers/service.js');

export const service: CommandDef = {
  name: 'service',
  summary: 'the local service that answers embedded commands in the background (status, stop)',
  notes: [
    'With no server configured, the first command starts a local service of yours: later commands',
    'reach the local database through it over a Unix socket (in $XDG_RUNTIME_DIR/chatflow when that',
    'directory is yours alone, else ~/.cache/chatflow/run, mode 0700), instead of loading the',
    'service themselves. It exits after 5 idle minutes (CHATFLOW_SERVICE_IDLE=<seconds>), and never',
    'runs with CHATFLOW_NO_SERVICE=1 or in CI (CI=true). It serves a file, not a path: the database',
    'removed, replaced, restored over or given a second name, it exits at once, writing nothing more.',
    'To start over or restore a backup, stop it first (chatflow service stop), then rm or cp the file.',
    'To run a service on purpose, for other machines or programs: chatflow serve.',
  ].join('\n'),
  commands: [
    {
      name: 'status',
      summary: 'list your local services: pid, version, database, socket, whether it answers',
      flags: [...GENERAL, ...OUTPUT],
      examples: ['chatflow service status', 'chatflow service status -o json'],
      handler: () => load().then((m) => m.status),
    },
    {
      name: 'stop',
      summary: "stop the local service of the database (each after the requests it is answering)",
      flags: [...GENERAL, { flags: '--all', help: 'stop every local service of yours (any database, any version)' }],
      examples: ['chatflow service stop', 'chatflow service stop --all', 'CHATFLOW_DB=./other.db chatflow service stop'],
      handler: () => load().then((m) => m.stop),
    },
  ],
};
