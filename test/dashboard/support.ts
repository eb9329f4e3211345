/**
 * A browser-less dashboard client for HTTP-level tests: a cookie jar, manual redirects,
 * and forms posted with the CSRF token read from the page, as a browser would.
 */
import { request as httpRequest } from 'node:http';
import { DashboardService } from '../../src/dashboard/service.js';
import type { Harness } from '../support/harness.js';

export async function createDashboardUser(h: Harness, businessId: string, email: string, password: string) {
  return new DashboardService(h.services.db, h.services.clock).upsertUser(businessId, email, password);
}

export interface Page {
  status: number;
  location: string | null;
  text: string;
  headers: Headers;
}

export class DashClient {
  readonly jar = new Map<string, string>();
  constructor(readonly baseUrl: string) {}

  private cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/max-age=0/i.test(line) || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  async request(method: 'GET' | 'POST', path: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(this.jar.size ? { cookie: this.cookieHeader() } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    this.remember(res);
    return { status: res.status, location: res.headers.get('location'), text: await res.text(), headers: res.headers };
  }

  get(path: string) {
    return this.request('GET', path);
  }

  /**
   * Sends `target` exactly as written (fetch would resolve `./` and `../`, and could not send
   * an absolute-form target), with the jar's cookies and an optional body of any type.
   */
  raw(method: 'GET' | 'POST', target: string, body?: { type: string; text: string }): Promise<Page> {
    const url = new URL(this.baseUrl);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method,
          path: target,
          headers: {
            ...(this.jar.size ? { cookie: this.cookieHeader() } : {}),
            ...(body ? { 'content-type': body.type, 'content-length': String(Buffer.byteLength(body.text)) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const headers = new Headers();
            for (const [k, v] of Object.entries(res.headers)) {
              for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) headers.append(k, one);
            }
            resolve({
              status: res.statusCode!,
              location: res.headers.location ?? null,
              text: Buffer.concat(chunks).toString('utf8'),
              headers,
            });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body?.text);
    });
  }

  /** Reads the CSRF token from `pagePath`, then posts the form with it. */
  async submit(pagePath: string, action: string, form: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Page> {
    const page = await this.request('GET', pagePath, undefined, headers);
    const token = csrfOf(page.text);
    return this.request('POST', action, { _csrf: token, ...form }, headers);
  }

  /** `headers`: e.g. X-Forwarded-For, to sign in "from" another address behind a trusted proxy. */
  async login(email: string, password: string, headers: Record<string, string> = {}): Promise<Page> {
    return this.submit('/dashboard/login', '/dashboard/login', { email, password }, headers);
  }
}

export function csrfOf(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error('no CSRF token on the page');
  return m[1]!;
}
