// `chatflow service status|stop` handlers: the local services of this user (../local-service.ts).
import { defaultDbPath } from '../../server/default-db.js';
import type { Context } from '../core/context.js';
import { EXIT, UserError } from '../core/errors.js';
import { listServices, serviceDir, serviceFiles, startFiles, startsSettled, stopService, sweep } from '../local-service.js';
import { SERVICE_TABLE } from '../render/views.js';

export async function status(ctx: Context): Promise<void> {
  const services = await listServices();
  const ours = serviceFiles(defaultDbPath())?.socket;
  const rows = services.map((s) => ({
    pid: s.pid,
    state: s.running ? 'running' : 'gone',
    current: s.socket === ours,
    version: s.version,
    database: s.database,
    idleSeconds: s.idleSeconds,
    started: s.started,
    socket: s.socket,
  }));
  await ctx.printList(rows, `local services (in ${serviceDir()})`, SERVICE_TABLE);
}

export async function stop(ctx: Context, opts: { all?: boolean }): Promise<void> {
  const files = serviceFiles(defaultDbPath());
  const ours = files?.socket;
  // A service still starting (right after the command that started it) is waited for, then
  // stopped: `chatflow demo && chatflow service stop` leaves none running.
  await startsSettled(opts.all ? startFiles() : files ? [files.start] : []);
  const chosen = (await listServices()).filter((s) => opts.all || s.socket === ours);
  // (What gone services left: nothing stays behind a stop of them all.)
  if (opts.all) sweep();
  if (chosen.length === 0) {
    ctx.out.note(opts.all ? 'No local service is running.' : `No local service is running for ${defaultDbPath()}.`);
    return;
  }
  for (const s of chosen) {
    if (!(await stopService(s))) throw new UserError(`the local service ${s.pid} did not stop in 5 seconds; try: kill ${s.pid}`, EXIT.error);
    ctx.out.note(s.running ? `stopped the local service ${s.pid} (${s.database})` : `removed the files of a local service that was gone (${s.database})`);
  }
}
