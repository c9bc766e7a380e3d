// Errors as values with a status; one middleware turns them into `{ error, field?, code? }`.
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
    readonly code?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
  body(): { error: string; field?: string; code?: string } {
    return {
      error: this.message,
      ...(this.field !== undefined ? { field: this.field } : {}),
      ...(this.code ? { code: this.code } : {}),
    };
  }
}

export const badRequest = (message: string, field?: string) => new HttpError(400, message, field);
export const unauthorized = (message = 'A valid API key is required') => new HttpError(401, message);
export const forbidden = (message: string) => new HttpError(403, message);
export const notFound = (message = 'Not found') => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);
export const payloadTooLarge = (message: string) => new HttpError(413, message);
export const tooManyRequests = (message: string, headers: Record<string, string>) =>
  new HttpError(429, message, undefined, undefined, headers);
export const unavailable = (message: string, code: string) => new HttpError(503, message, undefined, code);
