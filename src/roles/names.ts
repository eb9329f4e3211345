/**
 * The roles a process runs (runtime.ts starts them). Apart from runtime.ts so that the
 * command line can read them without loading the service.
 */
export type Role = 'api' | 'worker' | 'indexer';
export const ALL_ROLES: Role[] = ['api', 'worker', 'indexer'];
