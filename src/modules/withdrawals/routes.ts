import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { WithdrawalService } from './service.js';

export const withdrawalsRoutes: FastifyPluginAsyncTypebox<{ service: WithdrawalService }> = async (_app, _opts) => {};
