import { defineConfig } from 'vitest/config';

/**
 * Projects: `unit` (node, *.test.ts beside the code), `components` (happy-dom, *.test.tsx),
 * `api` (the real server on SQLite; and on PostgreSQL as `api-postgres` when TEST_DATABASE_URL is set),
 * `e2e` (playwright-core driving /usr/bin/chromium against the built console; run by scripts/test.mjs),
 * `scale` (tests/scale: BullMQ and worker processes on the real Redis; only when TEST_REDIS_URL or REDIS_URL is set).
 */
const postgres = process.env.TEST_DATABASE_URL;
const redis = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL;
/**
 * The API suites register and sign in hundreds of accounts: there passwords are hashed at scrypt 2^12 instead of
 * OWASP's 2^17 (server/security/passwords.ts). Measured on two cores, the six files that sign in most (accounts,
 * OTP and password, reset, webhooks, team, permissions) took 135 s at 2^17 and 45 s at 2^12. The unit suite checks
 * the real cost; the browser suite's server runs with it.
 */
const API_ENV = { NUDGE_TEST_SCRYPT_LOG2N: '12' };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          environment: 'node',
          include: ['{shared,server,admin,embed,storefront-widgets}/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'components',
          environment: 'happy-dom',
          include: ['{admin,embed,storefront-widgets}/**/*.test.tsx'],
        },
      },
      {
        test: {
          name: 'api',
          environment: 'node',
          include: ['tests/api/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          env: { NUDGE_TEST_DB: 'sqlite', ...API_ENV },
        },
      },
      ...(postgres
        ? [
            {
              test: {
                name: 'api-postgres',
                environment: 'node',
                include: ['tests/api/**/*.test.ts'],
                testTimeout: 30_000,
                hookTimeout: 30_000,
                env: { NUDGE_TEST_DB: 'postgres', TEST_DATABASE_URL: postgres, ...API_ENV },
              },
            },
          ]
        : []),
      ...(redis
        ? [
            {
              test: {
                name: 'scale',
                environment: 'node',
                include: ['tests/scale/**/*.test.ts'],
                testTimeout: 120_000,
                hookTimeout: 60_000,
                env: { TEST_REDIS_URL: redis, ...(postgres ? { TEST_DATABASE_URL: postgres } : {}) },
              },
            },
          ]
        : []),
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['tests/e2e/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
