// Errors a store or route raises on purpose; the error handler turns them into JSON bodies.
export class ServiceError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (what: string, id: string) => new ServiceError(404, `${what} ${id} not found`);
export const badRequest = (message: string) => new ServiceError(400, message);
export const conflict = (message: string) => new ServiceError(409, message);
export const unavailable = (message: string) => new ServiceError(503, message);
