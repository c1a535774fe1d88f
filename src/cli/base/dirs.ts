// The user's directories, from the environment: without node:os where HOME names the home (its
// load cost every command that reads the config file or the cache some 0.2 ms of its start).
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** The home directory: HOME on POSIX, which os.homedir() answers there when it is set; else os.homedir(). */
export function homeDir(env: NodeJS.ProcessEnv = process.env): string {
  return (process.platform !== 'win32' && env.HOME) || homedir();
}

/** `path` as a person reads it: `~/…` below the home directory, else as it is. */
export function shownPath(path: string, env: NodeJS.ProcessEnv = process.env): string {
  const home = homeDir(env);
  return home && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/**
 * chatflow's directory in the platform's config directory, as env-paths has it: XDG_CONFIG_HOME
 * (else ~/.config) on Linux, ~/Library/Preferences on macOS, %APPDATA% on Windows.
 */
export function platformConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'darwin') return join(homeDir(env), 'Library', 'Preferences', 'chatflow');
  if (process.platform === 'win32') return join(env.APPDATA || join(homeDir(env), 'AppData', 'Roaming'), 'chatflow', 'Config');
  return join(env.XDG_CONFIG_HOME || join(homeDir(env), '.config'), 'chatflow');
}

/**
 * chatflow's cache directory: XDG_CACHE_HOME (an empty or relative one is ignored, as the XDG rule
 * says), else ~/.cache, then chatflow. Completion lists, the servers' kinds and the local
 * service's sockets live below it.
 */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(homeDir(env), '.cache');
  return join(base, 'chatflow');
}
