/** This package's version (test/sdk/package.test.ts checks it against package.json). */
export const SDK_VERSION = '0.1.0';
