/** Jest runs TypeScript through ts-jest in ESM mode (client-node 1.x is ESM-only). */
export default {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
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
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  testSequencer: '<rootDir>/test/support/sequencer.cjs',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.cjs'],
  testTimeout: 30000,
  maxWorkers: 2,
};
