// `chatflow stats` (definition).
import { command } from '../core/command.js';
import { DATA } from '../core/flags.js';
import { CHATFLOW, PERIOD } from '../base/values.js';
import { filterFlag, SINCE } from '../core/filters.js';

export const stats = command({
  name: 'stats',
  summary: 'messages per day or hour, sessions, thumbs up/down and the most used tools of a chatflow',
  args: [{ name: '<chatflowId>', help: 'chatflow id, or a name only one chatflow has', values: CHATFLOW }],
  flags: [
    ...DATA,
    filterFlag('startDate', 'from this date, date-time or time ago, inclusive (a plain date is a UTC day: 2026-10-01, -2h, 7d)'),
    filterFlag('endDate', 'until this date, date-time or time ago, inclusive (a plain date means the whole UTC day)'),
    SINCE,
    { flags: '--by <period>', help: 'one row per day or per hour (UTC)', default: 'day', values: PERIOD },
    filterFlag('chatType', 'only this chat type, e.g. EXTERNAL (repeatable)'),
    { flags: '--top <n>', help: 'how many tools to show in the chart', default: '5' },
  ],
  examples: [
    'chatflow stats <chatflowId>                                   # a chart on a terminal, JSON when piped',
    'chatflow stats <chatflowId> --start-date 2026-10-01 --end-date 2026-10-31',
    'chatflow stats <chatflowId> --by hour --start-date 2026-10-30',
    'chatflow stats <chatflowId> -o json | jq .feedback',
    'chatflow stats <chatflowId> -o csv > per-day.csv               # one row per period',
  ],
  notes:
    '\nRatings are counted in the period of the rated message. Everything is computed from the list\n' +
    'endpoints as they stream, so it works against any server.\n',
});
