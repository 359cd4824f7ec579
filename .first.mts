import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from './server/app';
import { loadConfig } from './server/config';
import { migrateToLatest } from './server/db';
import { ensureSeedApplication } from './scripts/seed-lib';
const base = 'postgres://postgres@127.0.0.1:5432/nudge_dev_test';
const schema = `nudge_first_${process.pid}`;
const admin = new pg.Client({ connectionString: base }); await admin.connect(); await admin.query(`create schema "${schema}"`); await admin.end();
const url = new URL(base); url.searchParams.set('options', `-c search_path=${schema}`);
const dataDir = mkdtempSync(join(tmpdir(), 'nudge-first-'));
const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', SECRET_KEY: 'x', PORT: '0', HOST: '127.0.0.1', STATIC_DIR: join(dataDir, 'none'), DATABASE_URL: url.toString() });
const app = buildApp(config);
await migrateToLatest({ kysely: app.services.db, dialect: app.services.dialect });
const { clientKey } = await ensureSeedApplication(app.services.db, { applicationId: 'first', email: 'f@example.com', password: 'first-password' });
await app.ready();
if (process.env.WARM) { const { warmIngest } = await import('./server/domain/ingest'); const t0 = performance.now(); await warmIngest(app.services); console.log('warm', (performance.now() - t0).toFixed(0), 'ms'); }
for (const n of [1, 2, 3]) {
  const t = performance.now();
  const r = await app.inject({ method: 'POST', url: '/api/sdk/track', payload: { key: clientKey, visitor_id: `visitor-first-${n}`, items: [{ type: 'event', id: `first-e-000${n}`, name: 'x', at: Date.now() }] } });
  console.log(n, r.statusCode, r.statusCode === 200 ? "" : r.body.slice(0, 300), (performance.now() - t).toFixed(0), 'ms');
}
await app.close();
const a2 = new pg.Client({ connectionString: base }); await a2.connect(); await a2.query(`drop schema "${schema}" cascade`); await a2.end();
