// Errors the HTTP layer raises on purpose (routes, body checks), with their status; the error
// handler in app.ts turns them, and the store's domain errors (store/errors.ts), into JSON bodies.
export class ServiceError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}
