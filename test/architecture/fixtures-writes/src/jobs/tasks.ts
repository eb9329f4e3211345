export const outsideModules = 'UPDATE transactions SET reason = $1';
