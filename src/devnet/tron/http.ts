// A small HTTP front for the stand-in: java-tron's servlets take GET query parameters or a
// POST JSON body (visible from either), answer 200 with JSON, and report failures inside
// the body ({ "Error": "..." } or a Return); /standin/* control routes use status codes.
import http from 'node:http';
import { AddressError } from './address.js';
import { stringify } from './json.js';
import { StandInError } from './node.js';
import { TxFormatError } from './transactions.js';
import { ContractValidateError } from './actuators.js';

export interface Req {
  method: string;
  path: string;
  /** Query parameters and JSON body fields merged (the body wins). */
  params: Record<string, unknown>;
  visible: boolean;
  body: unknown;
}

export type Handler = (req: Req) => unknown;

/** A parameter java-tron's JsonFormat would refuse: answered as `{ Error }`. */
export class ParamError extends Error {}

/** java-tron's Util.printErrorMsg: `{ "Error": "<exception class> : <message>" }`. */
export function javaError(err: Error): { Error: string } {
  const cls =
    err instanceof ContractValidateError
      ? 'org.tron.core.exception.ContractValidateException'
      : err instanceof AddressError || err instanceof ParamError || err instanceof TxFormatError
        ? 'java.lang.IllegalArgumentException'
        : 'java.lang.Exception';
  return { Error: `class ${cls} : ${err.message}` };
}

const MAX_BODY = 4 * 1024 * 1024;

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new ParamError(`body size is too big, the limit is ${MAX_BODY}`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const truthy = (v: unknown) => v === true || v === 'true';

export interface StandInServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export function startServer(
  routes: Map<string, Handler>,
  opts: { host: string; port: number; onError: (err: unknown, path: string) => void },
): Promise<StandInServer> {
  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const path = url.pathname.replace(/\/+$/, '');
      const control = path.startsWith('/standin/');
      const send = (status: number, value: unknown) => {
        const text = typeof value === 'string' ? value : stringify(value);
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(text);
      };
      const handler = routes.get(path);
      if (!handler) return send(404, { Error: `no such endpoint: ${path}` });
      try {
        const raw = req.method === 'POST' || req.method === 'PUT' ? await readBody(req) : '';
        let body: unknown = {};
        if (raw.trim() !== '') {
          try {
            body = JSON.parse(raw);
          } catch {
            throw new ParamError('body is not valid JSON');
          }
        }
        const query = Object.fromEntries(url.searchParams.entries());
        const params = { ...query, ...(typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) } as Record<
          string,
          unknown
        >;
        const value = await handler({ method: req.method ?? 'GET', path, params, visible: truthy(params.visible), body });
        send(200, value);
      } catch (err) {
        if (control) {
          const status = err instanceof ParamError || err instanceof AddressError ? 400 : err instanceof StandInError ? 409 : 500;
          if (status === 500) opts.onError(err, path);
          return send(status, { error: (err as Error).message });
        }
        if (
          err instanceof ParamError ||
          err instanceof AddressError ||
          err instanceof TxFormatError ||
          err instanceof ContractValidateError
        ) {
          return send(200, javaError(err));
        }
        opts.onError(err, path);
        send(200, javaError(err as Error));
      }
    })();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      const addr = server.address() as { port: number };
      resolve({
        url: `http://${opts.host}:${addr.port}`,
        port: addr.port,
        close: () =>
          new Promise<void>((r) => {
            server.close(() => r());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** Integer parameter (JSON number or numeric string), with java-tron's default of 0. */
export function intParam(params: Record<string, unknown>, name: string, fallback = 0): number {
  const v = params[name];
  if (v === undefined || v === null || v === '') return fallback;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new ParamError(`${name} must be an integer`);
  return n;
}
