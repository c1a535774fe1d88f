// What a store refuses, in the store's own words: the HTTP layer (app.ts) decides how each is
// answered. No status codes and no routes here.

/** A refusal by the store, as opposed to a failure of the database. */
export class StoreError extends Error {
  override readonly name: string = 'StoreError';
}

/** The record addressed does not exist. */
export class NotFound extends StoreError {
  override readonly name = 'NotFound';
  constructor(
    readonly what: string,
    readonly id: string,
  ) {
    super(`${what} ${id} not found`);
  }
}

/** The record would clash with one that exists (`existing` names it when known). */
export class Conflict extends StoreError {
  override readonly name = 'Conflict';
  constructor(
    message: string,
    readonly existing?: { what: 'feedback'; id: string },
  ) {
    super(message);
  }
}

/** A record refers to another that does not exist, or contradicts what that one says. */
export class BadReference extends StoreError {
  override readonly name = 'BadReference';
}

/** A value this database cannot keep (PostgreSQL: a NUL character, a date in year 0). */
export class Unstorable extends StoreError {
  override readonly name = 'Unstorable';
}
