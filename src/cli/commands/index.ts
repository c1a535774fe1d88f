// Every command, in the order `chatflow --help` lists them, bound to its handler's loader: a
// handler's module is imported only when its command runs. A new command is a definition in this
// folder, a handler in ../handlers/ typed from it (Flags<…>), and its loader here (bind checks it).
import { bind, type CommandDef } from '../core/command.js';
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

const promoteH = () => import('../handlers/promote.js');

const variablesH = () => import('../handlers/variables.js');
const feedbackH = () => import('../handlers/feedback.js');
const assistantsH = () => import('../handlers/assistants.js');
const messagesH = () => import('../handlers/messages.js');
const chatsH = () => import('../handlers/chats.js');
const privacyH = () => import('../handlers/privacy.js');
const upsertHistoryH = () => import('../handlers/upsert-history.js');
const chatflowsH = () => import('../handlers/chatflows.js');
const transferH = () => import('../handlers/chatflow-transfer.js');
const configH = () => import('../handlers/config.js');
const dbH = () => import('../handlers/db.js');
const completionH = () => import('../handlers/completion.js');

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
  bind(credentials, { list: () => import('../handlers/credentials.js').then((m) => m.list) }),
  bind(messages, {
    list: () => messagesH().then((m) => m.list),
    delete: () => messagesH().then((m) => m.remove),
    prune: () => import('../handlers/prune.js').then((m) => m.prune),
    tail: () => import('../handlers/tail.js').then((m) => m.tail),
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
  bind(stats, () => import('../handlers/stats.js').then((m) => m.stats)),
  bind(api, () => import('../handlers/api.js').then((m) => m.api)),
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
  bind(demo, () => import('../handlers/demo.js').then((m) => m.demo)),
  bind(exportCommand, () => import('../handlers/export.js').then((m) => m.exportAll)),
  bind(importCommand, () => import('../handlers/import.js').then((m) => m.importFile)),
  bind(serve, () => import('../handlers/serve.js').then((m) => m.serve)),
  bind(db, {
    check: () => dbH().then((m) => m.check),
    backup: () => dbH().then((m) => m.backup),
    restore: () => dbH().then((m) => m.restore),
  }),
  bind(completion, () => completionH().then((m) => m.script)),
  bind(complete, () => completionH().then((m) => m.candidates)),
];
