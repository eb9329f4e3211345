import type { AuthContext } from '../modules/apikeys/service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the API-key hook on every /v1 route before the handler runs. */
    auth: AuthContext;
  }
}
