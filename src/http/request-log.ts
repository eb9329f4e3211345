/**
 * Fastify's per-request log lines, minus those of refused API requests (issue 24, item 2):
 * a flood of bad keys from many addresses must cost close to nothing, and two log lines per
 * refusal are most of what such a refusal would cost. A refused authentication is counted
 * instead (auth.ts: `api_auth_refusals_total`, by reason).
 *
 * So an API route's "incoming request" line is written by the auth hook once the key is
 * good (`logAccepted`), not by Fastify on arrival; its "request completed" line is dropped
 * when the hook refused it (`markRefused`). Every other request (dashboard, docs, health,
 * unmatched routes) is logged as Fastify always does.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

const refused = new WeakSet<FastifyRequest>();

/** An API route: its request lines follow the auth hook's verdict. */
const isApiRoute = (request: FastifyRequest) => request.routeOptions.url?.startsWith('/v1/') === true;

export class RequestLog extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (!isApiRoute(request)) super.incomingRequest(request, reply);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (!refused.has(request)) super.requestCompleted(error, request, reply);
  }
}

/** The auth hook accepted the request: its "incoming request" line, as Fastify would have written it. */
export function logAccepted(request: FastifyRequest): void {
  request.log.info({ req: request }, 'incoming request');
}

/** The auth hook refused the request: no line for it. */
export function markRefused(request: FastifyRequest): void {
  refused.add(request);
}
