import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ContractService } from './service.js';

export const contractsRoutes: FastifyPluginAsyncTypebox<{ service: ContractService }> = async (_app, _opts) => {};
