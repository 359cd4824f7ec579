import { Agent } from 'node:https';
import webpush from 'web-push';
import { WebPushSender, generateVapidKeys, type WebPushSubscription } from '../../server/delivery/senders/webpush';
import { drive, rateLine, startFakeProcess } from './fake-process';

const TARGET = 4_000;
const FACTOR = 3;
const WINDOW = 256;

/**
 * Web push throughput to the local push-service fake (in a child process, which checks VAPID and decrypts
 * every payload): our sender against a loop over web-push's sendNotification, same subscriptions, same
 * in-flight window, same keep-alive. Run alone with `npx tsx tests/bench/webpush.ts`.
 */
export async function benchWebPush(): Promise<boolean> {
  const fake = await startFakeProcess<{ url: string; ca: string; subscriptions: WebPushSubscription[] }>('webpush', 1000);
  try {
    const { ca, subscriptions } = fake.info;
    const vapid = { ...generateVapidKeys(), subject: 'mailto:bench@nudge.test' };
    const payload = JSON.stringify({ title: 'Flash sale', body: 'Giảm 50% cho mọi đơn hàng hôm nay', url: 'https://shop.example/sale?utm_source=nudge' });
    const sub = (i: number) => subscriptions[i % subscriptions.length];

    const sender = new WebPushSender({ vapid, ca, connections: 32 });
    await drive(500, WINDOW, async (i) => (await sender.send(sub(i), { payload, ttl: 3600 })).ok); // warm-up
    const oursTotal = 20_000;
    const before = await fake.count();
    const ours = await drive(oursTotal, WINDOW, async (i) => (await sender.send(sub(i), { payload, ttl: 3600, urgency: 'normal' })).ok);
    const delivered = (await fake.count()) - before;
    await sender.close();

    const agent = new Agent({ ca, keepAlive: true, maxSockets: 32 });
    const options = { vapidDetails: vapid, TTL: 3600, agent, contentEncoding: 'aes128gcm' as const };
    await drive(200, WINDOW, async (i) => (await webpush.sendNotification(sub(i), payload, options)).statusCode === 201);
    const theirsTotal = 4_000;
    const theirs = await drive(theirsTotal, WINDOW, async (i) => (await webpush.sendNotification(sub(i), payload, options)).statusCode === 201);
    agent.destroy();

    const oursRate = (ours.done / ours.ms) * 1000;
    const theirsRate = (theirs.done / theirs.ms) * 1000;
    console.log(rateLine('nudge WebPushSender (encrypt + VAPID + send)', ours.done, ours.ms, `≥ ${TARGET}`));
    console.log(rateLine('web-push sendNotification, same window', theirs.done, theirs.ms, 'baseline'));
    console.log(`ratio ${(oursRate / theirsRate).toFixed(2)}× (target ≥ ${FACTOR}×); fake decrypted ${delivered} of ${ours.done}; failures ours ${ours.failed}, web-push ${theirs.failed}`);
    return ours.failed === 0 && delivered === ours.done && oursRate >= TARGET && oursRate >= FACTOR * theirsRate;
  } finally {
    await fake.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchWebPush().then((ok) => process.exit(ok ? 0 : 1));
}
