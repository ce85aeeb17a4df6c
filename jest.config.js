/**
 * Jest runs TypeScript as ES modules (client-node 1.x is ESM-only), transformed file by file with
 * esbuild (test/support/esbuild-transformer.cjs); `npm run typecheck` checks the types.
 */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  roots: [
    '<rootDir>/shared',
    '<rootDir>/functions',
    '<rootDir>/triggers',
    '<rootDir>/local',
    '<rootDir>/test',
    '<rootDir>/packages',
  ],
  testMatch: ['**/*.test.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': '<rootDir>/test/support/esbuild-transformer.cjs',
  },
  testSequencer: '<rootDir>/test/support/sequencer.cjs',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.cjs'],
  testTimeout: 30000,
  maxWorkers: 2,
};
