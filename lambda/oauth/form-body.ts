// The body of a form POST (/token, the consent answer): application/x-www-form-urlencoded, capped, each field once
// (RFC 6749 3.2: parameters must not be included more than once).
import { InvalidRequestError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

/** Reads the form, or throws `InvalidRequestError` naming `what` was sent wrong. */
export async function formBody(request: Request, maxBytes: number, what: string): Promise<URLSearchParams> {
  const type = request.headers.get('content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded'))
    throw new InvalidRequestError(`${what} must be application/x-www-form-urlencoded`);
  const body = await request.text();
  if (Buffer.byteLength(body) > maxBytes) throw new InvalidRequestError(`${what} is too large`);
  const form = new URLSearchParams(body);
  for (const name of new Set(form.keys()))
    if (form.getAll(name).length > 1) throw new InvalidRequestError(`${name} is given more than once`);
  return form;
}
