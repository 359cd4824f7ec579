import type { Services } from '../context';
import { BullmqJobQueue } from './bullmq-queue';
import { DbJobQueue } from './db-queue';
import type { JobQueue } from './types';

export type { JobContext, JobHandler, JobOptions, JobQueue, WorkerOptions } from './types';
export { releaseLeadership, repeatAsLeader, runAsLeader, type LeaderRounds } from './leader';

/**
 * The process's job queue, chosen by configuration: BullMQ on REDIS_URL (scale mode), else the durable
 * queue on the `jobs` table of the app's database (embedded mode). The caller closes it.
 */
export function createJobQueue(s: Pick<Services, 'config' | 'db' | 'dialect' | 'clock' | 'log'>): JobQueue {
  if (s.config.redisUrl) return new BullmqJobQueue({ url: s.config.redisUrl, log: s.log });
  return new DbJobQueue({ db: s.db, dialect: s.dialect, log: s.log, clock: s.clock });
}
