// A request's documented failure: a catalog code (status and default message from the spec), and for some
// codes a message of our own (the PIX rejections "give the reason") or headers (Retry-After).
export class Failure extends Error {
  readonly code: string;
  readonly headers: Record<string, string>;
  readonly detail: string | undefined;
  constructor(code: string, detail?: string, headers: Record<string, string> = {}) {
    super(detail ?? code);
    this.code = code;
    this.detail = detail;
    this.headers = headers;
  }
}
