import { ApnsSender } from '../../server/delivery/senders/apns';
import { FcmSender, type ServiceAccount } from '../../server/delivery/senders/fcm';
import { availableParallelism } from 'node:os';
import { cpuTimeMs, drive, rateLine, startFakeProcess, type FakeProcess } from './fake-process';

const TARGET = 10_000;

/**
 * Runs `run` and says the CPU it cost a message in this process and in the fake's, which share the machine's cores:
 * whether the sender, the fake or neither is the limit.
 */
async function withCpu<T extends { done: number }>(fake: FakeProcess<unknown>, peer: string, run: () => Promise<T>): Promise<T & { cpuLine: string }> {
  const before = await fake.stats();
  const cpu = process.cpuUsage();
  const result = await run();
  const oursMs = cpuTimeMs(process.cpuUsage(cpu));
  const fakeMs = (await fake.stats()).cpuMs - before.cpuMs;
  const per = (ms: number) => ((ms * 1000) / Math.max(1, result.done)).toFixed(0);
  return { ...result, cpuLine: `CPU per message: this process ${per(oursMs)} µs, the ${peer} fake ${per(fakeMs)} µs, on ${availableParallelism()} cores` };
}

/**
 * FCM HTTP v1 and APNs HTTP/2 throughput from one process to the local fakes (each in a child process,
 * checking OAuth bearer tokens / ES256 provider tokens on every request). Run alone with
 * `npx tsx tests/bench/fcm-apns.ts`.
 */
export async function benchFcmApns(): Promise<boolean> {
  const total = 30_000;
  const message = { notification: { title: 'Flash sale', body: 'Giảm 50% cho mọi đơn hàng hôm nay' }, data: { url: 'https://shop.example/sale' } };
  const alert = { payload: { aps: { alert: { title: 'Flash sale', body: 'Giảm 50% cho mọi đơn hàng hôm nay' } }, url: 'https://shop.example/sale' } };

  const fcmFake = await startFakeProcess<{ url: string; serviceAccount: ServiceAccount; tokens: string[] }>('fcm', 1000);
  let fcmRate = 0;
  try {
    const { url, serviceAccount, tokens } = fcmFake.info;
    const fcm = new FcmSender({ serviceAccount, baseUrl: url, connections: 64 });
    await drive(1000, 256, async (i) => (await fcm.send({ token: tokens[i % tokens.length] }, message)).ok);
    const run = await withCpu(fcmFake, 'FCM', () => drive(total, 512, async (i) => (await fcm.send({ token: tokens[i % tokens.length] }, message)).ok));
    await fcm.close();
    fcmRate = (run.done / run.ms) * 1000;
    console.log(rateLine('FCM HTTP v1 (OAuth bearer, keep-alive pool)', run.done, run.ms, `≥ ${TARGET}`));
    console.log(`failures ${run.failed}; access tokens fetched ${fcm.tokensFetched}; ${run.cpuLine}`);
    if (run.failed) fcmRate = 0;
  } finally {
    await fcmFake.stop();
  }

  const apnsFake = await startFakeProcess<{ host: string; port: number; ca: string; topic: string; tokenKey: { keyId: string; teamId: string; key: string }; devices: string[] }>('apns', 1000);
  let apnsRate = 0;
  try {
    const { host, port, ca, topic, tokenKey, devices } = apnsFake.info;
    const apns = new ApnsSender({ auth: { kind: 'token', ...tokenKey }, topic, host, port, ca });
    await drive(1000, 256, async (i) => (await apns.send({ deviceToken: devices[i % devices.length] }, alert)).ok);
    const run = await withCpu(apnsFake, 'APNs', () => drive(total, 512, async (i) => (await apns.send({ deviceToken: devices[i % devices.length] }, alert)).ok));
    apnsRate = (run.done / run.ms) * 1000;
    console.log(rateLine('APNs HTTP/2 (provider token, one connection)', run.done, run.ms, `≥ ${TARGET}`));
    console.log(`failures ${run.failed}; connections opened ${apns.connectionsOpened}; ${run.cpuLine}`);
    if (run.failed) apnsRate = 0;
    await apns.close();
  } finally {
    await apnsFake.stop();
  }
  return fcmRate >= TARGET && apnsRate >= TARGET;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchFcmApns().then((ok) => process.exit(ok ? 0 : 1));
}
