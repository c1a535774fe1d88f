// Every command, in the order `chatflow --help` lists them, bound to its handler's loader: a
// handler's module is imported only when its command runs. A new command is a definition in its
// feature's folder (variables/commands.ts), a handler beside it typed from it (Flags<…>,
// core/command.ts), and its loader here: bind() refuses a handler that does not fit.
import { bind, type CommandDef } from './core/command.js';
import { api } from './api/commands.js';
import { assistants } from './assistants/commands.js';
import { chatflows } from './chatflows/commands.js';
import { chats } from './chats/commands.js';
import { complete, completion } from './completion/commands.js';
import { config, login, logout } from './config/commands.js';
import { db } from './db/commands.js';
import { demo } from './demo/commands.js';
import { exportCommand } from './export/commands.js';
import { feedback } from './feedback/commands.js';
import { importCommand } from './import/commands.js';
import { messages } from './messages/commands.js';
import { privacy } from './privacy/commands.js';
import { serve } from './serve/commands.js';
import { credentials } from './credentials/commands.js';
import { stats } from './stats/commands.js';
import { upsertHistory } from './upsert-history/commands.js';
import { variables } from './variables/commands.js';

const promoteH = () => import('./promote/handlers.js');

const variablesH = () => import('./variables/handlers.js');
const feedbackH = () => import('./feedback/handlers.js');
const assistantsH = () => import('./assistants/handlers.js');
const messagesH = () => import('./messages/handlers.js');
const chatsH = () => import('./chats/handlers.js');
const privacyH = () => import('./privacy/handlers.js');
const upsertHistoryH = () => import('./upsert-history/handlers.js');
const chatflowsH = () => import('./chatflows/handlers.js');
const transferH = () => import('./chatflows/transfer.js');
const configH = () => import('./config/handlers.js');
const dbH = () => import('./db/handlers.js');
const completionH = () => import('./completion/handlers.js');

export const COMMANDS: CommandDef[] = [
  bind(variables, {
    list: () => variablesH().then((m) => m.list),
    get: () => variablesH().then((m) => m.get),
    create: () => variablesH().then((m) => m.create),
    update: () => variablesH().then((m) => m.update),
    delete: () => variablesH().then((m) => m.remove),
    set: () => variablesH().then((m) => m.set),
    diff: () => promoteH().then((m) => m.diffVariables),
    sync: () => promoteH().then((m) => m.syncVariables),
  }),
  bind(feedback, {
    list: () => feedbackH().then((m) => m.list),
    create: () => feedbackH().then((m) => m.create),
    update: () => feedbackH().then((m) => m.update),
  }),
  bind(assistants, {
    list: () => assistantsH().then((m) => m.list),
    get: () => assistantsH().then((m) => m.get),
    create: () => assistantsH().then((m) => m.create),
    update: () => assistantsH().then((m) => m.update),
    delete: () => assistantsH().then((m) => m.remove),
    diff: () => promoteH().then((m) => m.diffAssistants),
    sync: () => promoteH().then((m) => m.syncAssistants),
  }),
  bind(credentials, { list: () => import('./credentials/handlers.js').then((m) => m.list) }),
  bind(messages, {
    list: () => messagesH().then((m) => m.list),
    delete: () => messagesH().then((m) => m.remove),
    prune: () => import('./messages/prune.js').then((m) => m.prune),
    tail: () => import('./messages/tail.js').then((m) => m.tail),
  }),
  bind(chats, {
    list: () => chatsH().then((m) => m.list),
    show: () => chatsH().then((m) => m.show),
  }),
  bind(privacy, {
    find: () => privacyH().then((m) => m.find),
    erase: () => privacyH().then((m) => m.erase),
  }),
  bind(upsertHistory, {
    list: () => upsertHistoryH().then((m) => m.list),
    delete: () => upsertHistoryH().then((m) => m.remove),
  }),
  bind(chatflows, {
    list: () => chatflowsH().then((m) => m.list),
    get: () => chatflowsH().then((m) => m.get),
    export: () => transferH().then((m) => m.exportFlows),
    import: () => transferH().then((m) => m.importFlows),
    diff: () => transferH().then((m) => m.diffFlows),
    sync: () => transferH().then((m) => m.syncFlows),
  }),
  bind(stats, () => import('./stats/handlers.js').then((m) => m.stats)),
  bind(api, () => import('./api/handlers.js').then((m) => m.api)),
  bind(config, {
    set: () => configH().then((m) => m.set),
    get: () => configH().then((m) => m.get),
    unset: () => configH().then((m) => m.unset),
    list: () => configH().then((m) => m.list),
    use: () => configH().then((m) => m.use),
    delete: () => configH().then((m) => m.remove),
    path: () => configH().then((m) => m.path),
  }),
  bind(login, () => configH().then((m) => m.login)),
  bind(logout, () => configH().then((m) => m.logout)),
  bind(demo, () => import('./demo/handlers.js').then((m) => m.demo)),
  bind(exportCommand, () => import('./export/handlers.js').then((m) => m.exportAll)),
  bind(importCommand, () => import('./import/handlers.js').then((m) => m.importFile)),
  bind(serve, () => import('./serve/handlers.js').then((m) => m.serve)),
  bind(db, {
    check: () => dbH().then((m) => m.check),
    backup: () => dbH().then((m) => m.backup),
    restore: () => dbH().then((m) => m.restore),
  }),
  bind(completion, () => completionH().then((m) => m.script)),
  bind(complete, () => completionH().then((m) => m.candidates)),
];
