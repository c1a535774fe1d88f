// Every operation's handler, keyed like the route table (the compiler checks none is missing).
import { VERSION } from '../../version.js';
import { assistantRoutes } from './assistants.js';
import { chatflowRoutes } from './chatflows.js';
import { chatRoutes } from './chats.js';
import { feedbackRoutes } from './feedback.js';
import { messageRoutes } from './messages.js';
import { TextAnswer, type RouteHandlers } from './types.js';
import { upsertHistoryRoutes } from './upsert-history.js';
import { variableRoutes } from './variables.js';

export const handlers: RouteHandlers = {
  ping: { handle: () => new TextAnswer('pong') },
  version: { handle: () => ({ version: VERSION }) },
  ...variableRoutes,
  ...feedbackRoutes,
  ...assistantRoutes,
  ...messageRoutes,
  ...chatRoutes,
  ...upsertHistoryRoutes,
  ...chatflowRoutes,
};
