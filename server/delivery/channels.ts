import type { PlatformKind } from '../../shared/contract';
import type { Services } from '../context';
import { loadChannelCredentials, providerCa, type ChannelCredentials } from '../domain/platforms';
import { ApnsSender, FcmSender, MessengerSender, SmsSender, WebPushSender } from './senders';

/** A platform's live sender, built from its credentials. */
export type Channel =
  | { kind: 'web'; sender: WebPushSender; iconUrl: string | null }
  | { kind: 'ios'; sender: ApnsSender }
  | { kind: 'android'; sender: FcmSender }
  | { kind: 'sms'; sender: SmsSender }
  | { kind: 'facebook'; sender: MessengerSender };

/** Keep-alive connections per push-service or provider origin, per application sender. */
const CONNECTIONS = 64;
/** A replaced sender is closed this long after, so batches still using it finish their sends. */
const RETIRE_AFTER_MS = 30_000;

interface Entry {
  version: string;
  channel: Promise<Channel | null>;
}

/** `host:port` of config.providers' APNs hosts. */
function hostPort(value: string): { host: string; port: number } {
  const match = /^(.*?)(?::(\d+))?$/.exec(value.trim());
  return { host: match?.[1] || value, port: match?.[2] ? Number(match[2]) : 443 };
}

/**
 * The senders of every (application, platform) the engine sends through, kept between batches so
 * connections, VAPID JWTs and OAuth tokens are reused. A platform saved again (its row's updated_at moves)
 * gets a new sender built from the new credentials; the old one is closed once its batches are done.
 */
export class ChannelCache {
  private readonly entries = new Map<string, Entry>();
  private readonly retiring = new Map<NodeJS.Timeout, Promise<Channel | null>>();
  private readonly ca: string | undefined;
  private closed = false;

  constructor(private readonly s: Pick<Services, 'db' | 'config' | 'log'>) {
    this.ca = providerCa(s.config);
  }

  /** The platform's sender now, or null when it is not configured or not active. */
  async get(applicationId: string, kind: PlatformKind): Promise<Channel | null> {
    if (this.closed) throw new Error('delivery channels are closed');
    const row = await this.s.db
      .selectFrom('platforms')
      .select(['status', 'created_at', 'updated_at'])
      .where('application_id', '=', applicationId)
      .where('kind', '=', kind)
      .executeTakeFirst();
    const key = `${applicationId}\u0000${kind}`;
    const version = row ? `${row.status} ${row.updated_at ?? row.created_at}` : 'none';
    const cached = this.entries.get(key);
    if (cached?.version === version) return cached.channel;
    if (cached) this.retire(cached.channel);
    const channel = row?.status === 'active' ? this.build(applicationId, kind) : Promise.resolve(null);
    this.entries.set(key, { version, channel });
    // A failed build is not kept: the next batch tries again.
    channel.catch(() => {
      if (this.entries.get(key)?.channel === channel) this.entries.delete(key);
    });
    return channel;
  }

  private async build(applicationId: string, kind: PlatformKind): Promise<Channel | null> {
    const credentials = await loadChannelCredentials(this.s, applicationId, kind);
    return credentials ? this.senderFor(credentials) : null;
  }

  private senderFor(credentials: ChannelCredentials): Channel {
    const { providers } = this.s.config;
    const ca = this.ca;
    switch (credentials.kind) {
      case 'web':
        return { kind: 'web', sender: new WebPushSender({ vapid: credentials.vapid, ca, connections: CONNECTIONS }), iconUrl: credentials.iconUrl };
      case 'ios': {
        const { host, port } = hostPort(credentials.production ? providers.apnsProductionHost : providers.apnsDevelopmentHost);
        return { kind: 'ios', sender: new ApnsSender({ auth: credentials.auth, topic: credentials.topic, production: credentials.production, host, port, ca }) };
      }
      case 'android':
        return {
          kind: 'android',
          sender: new FcmSender({
            serviceAccount: credentials.serviceAccount,
            baseUrl: providers.fcmBaseUrl,
            tokenUrl: providers.googleTokenUrl ?? undefined,
            ca,
            connections: CONNECTIONS,
          }),
        };
      case 'sms':
        return {
          kind: 'sms',
          sender: new SmsSender({ baseUrl: providers.smsBaseUrl, username: credentials.username, password: credentials.password, brandName: credentials.brandName, ca }),
        };
      case 'facebook':
        return { kind: 'facebook', sender: new MessengerSender({ pageToken: credentials.pageAccessToken, baseUrl: providers.graphBaseUrl, ca }) };
    }
  }

  private retire(channel: Promise<Channel | null>): void {
    const timer = setTimeout(() => {
      this.retiring.delete(timer);
      void closeChannel(channel, this.s);
    }, RETIRE_AFTER_MS);
    timer.unref();
    this.retiring.set(timer, channel);
  }

  /** Closes every sender (their connections); the cache can't be used afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.retiring.keys()) clearTimeout(timer);
    const channels = [...this.entries.values()].map((entry) => entry.channel).concat([...this.retiring.values()]);
    this.retiring.clear();
    this.entries.clear();
    await Promise.all(channels.map((channel) => closeChannel(channel, this.s)));
  }
}

async function closeChannel(channel: Promise<Channel | null>, s: Pick<Services, 'log'>): Promise<void> {
  try {
    await (await channel)?.sender.close();
  } catch (error) {
    s.log.warn({ err: error }, 'closing a delivery sender failed');
  }
}
