import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { SigningService } from './service.js';

export const signingRoutes: FastifyPluginAsyncTypebox<{ service: SigningService }> = async (_app, _opts) => {};
