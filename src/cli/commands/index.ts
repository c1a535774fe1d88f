// Every command, in the order `chatflow --help` lists them. A new command is a definition in
// this folder, added here, and a handler in ../handlers/.
import type { CommandDef } from '../core/command.js';
import { api } from './api.js';
import { assistants } from './assistants.js';
import { chatflows } from './chatflows.js';
import { chats } from './chats.js';
import { complete, completion } from './completion.js';
import { config, login, logout } from './config.js';
import { db } from './db.js';
import { demo } from './demo.js';
import { exportCommand } from './export.js';
import { feedback } from './feedback.js';
import { importCommand } from './import.js';
import { messages } from './messages.js';
import { privacy } from './privacy.js';
import { serve } from './serve.js';
import { credentials } from './credentials.js';
import { stats } from './stats.js';
import { upsertHistory } from './upsert-history.js';
import { variables } from './variables.js';

export const COMMANDS: CommandDef[] = [
  variables,
  feedback,
  assistants,
  credentials,
  messages,
  chats,
  privacy,
  upsertHistory,
  chatflows,
  stats,
  api,
  config,
  login,
  logout,
  demo,
  exportCommand,
  importCommand,
  serve,
  db,
  completion,
  complete,
];
