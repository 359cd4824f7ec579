import { defineConfig } from 'vitest/config';

/**
 * Projects: `unit` (node, *.test.ts beside the code), `components` (happy-dom, *.test.tsx),
 * `api` (the real server on SQLite; and on PostgreSQL as `api-postgres` when TEST_DATABASE_URL is set),
 * `e2e` (playwright-core driving /usr/bin/chromium against the built console; run by scripts/test.mjs).
 */
const postgres = process.env.TEST_DATABASE_URL;

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
          env: { NUDGE_TEST_DB: 'sqlite' },
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
                env: { NUDGE_TEST_DB: 'postgres', TEST_DATABASE_URL: postgres },
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
