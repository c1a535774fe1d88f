// What the compiler refuses where a fact of src/schema/ is missing (test/docs/facts.test.ts
// compiles this file): each line under `@ts-expect-error` must fail, or tsc calls the directive
// unused and the test fails.
import { routePath, routeRequest, type RouteWithId } from '../../src/schema/paths.js';
import { everyKey, type ChatMessageRow } from '../../src/server/store/tables.js';

// A route's path with a parameter is built with its id.
// @ts-expect-error
routePath('getChatflow');
routePath('getChatflow', 'id');
// And one without a parameter takes none.
// @ts-expect-error
routeRequest('createVariable', 'id');
// A command deleting by id names a route that takes one.
// @ts-expect-error
export const deletes: RouteWithId = 'createVariable';

// The store answers every column of a message (a field of the schema's message is one).
// @ts-expect-error
everyKey<ChatMessageRow>()(['id', 'role', 'chatflowid', 'content']);
