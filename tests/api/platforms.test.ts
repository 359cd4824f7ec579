import { generateKeyPairSync } from 'node:crypto';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activePlatformKinds, loadChannelCredentials } from '../../server/domain/platforms';
import { openSecret } from '../../server/security/secret-box';
import { start as startGraph, type GraphFake } from '../fakes/graph';
import { addMember, createApplication, createUser, db, startServer, type Answer, type CallOptions, type TestServer, type TestUser } from './helpers';

/** The iOS, Android, SMS and Facebook platform cards' API: checks, sealing, masking, the Graph page check, roles. */
const APP = 'platforms_app';
const base = `/api/application/${APP}/platform`;

let server: TestServer;
let graph: GraphFake;
let owner: TestUser;

/** Every answer of this file, to check at the end that no secret ever went out. */
const answers: string[] = [];
/** Every secret this file saved. */
const secrets: string[] = [];

async function call(method: string, url: string, options: CallOptions = {}): Promise<Answer> {
  const answer = await server.call(method, url, { lang: 'en', ...options });
  answers.push(JSON.stringify(answer.body));
  return answer;
}
const put = (kind: string, body: unknown, token = owner.token) => call('PUT', `${base}/${kind}`, { token, body });
const get = (kind: string, token = owner.token) => call('GET', `${base}/${kind}`, { token });

async function rowOf(kind: string) {
  return db(server).selectFrom('platforms').selectAll().where('application_id', '=', APP).where('kind', '=', kind).executeTakeFirst();
}

/** The row as stored, and that the secret is nowhere in it but opens from its sealed column. */
async function expectSealed(kind: string, secret: string) {
  const row = await rowOf(kind);
  expect(row).toBeDefined();
  expect(JSON.stringify(row)).not.toContain(secret);
  // Stored as JSON, trimmed as the contract trims it.
  expect(openSecret(server.config.secretKey, `platform:${kind}:credentials`, row!.secrets!)).toContain(JSON.stringify(secret.trim()).slice(1, -1));
}

function expectHidden(answer: Answer, ...values: string[]) {
  const text = JSON.stringify(answer.body);
  for (const value of values) expect(text).not.toContain(value);
}

function pkcs8(type: 'ec' | 'rsa'): string {
  const pair = type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

const p8 = pkcs8('ec');
const rsaKey = pkcs8('rsa');
const serviceAccount = {
  type: 'service_account',
  project_id: 'nudge-shop-1234',
  private_key_id: '3f1c0a9b8e7d6c5b4a39281706f5e4d3c2b1a090',
  private_key: rsaKey,
  client_email: 'firebase-adminsdk-x1y2z@nudge-shop-1234.iam.gserviceaccount.com',
  client_id: '109876543210987654321',
  token_uri: 'https://oauth2.googleapis.com/token',
};
const serviceAccountJson = JSON.stringify(serviceAccount, null, 2);

const DAY = 86_400_000;
let certificatePem: { cert: string; key: string };
let encryptedPem: { cert: string; key: string };
let expiredPem: { cert: string; key: string };
let strangerKey: string;

beforeAll(async () => {
  graph = await startGraph();
  server = await startServer({ env: { GRAPH_BASE_URL: graph.url } });
  owner = await createUser(server, { name: 'Owner' });
  await createApplication(server, owner, APP);
  const subject = [{ name: 'commonName', value: 'Apple Push Services: vn.nudge.shop' }];
  const options = { keyType: 'ec', algorithm: 'sha256' } as const;
  const [plain, encrypted, expired, stranger] = await Promise.all([
    generate(subject, options),
    generate(subject, { ...options, passphrase: 'mật khẩu' }),
    generate(subject, { ...options, notBeforeDate: new Date(Date.now() - 400 * DAY), notAfterDate: new Date(Date.now() - 30 * DAY) }),
    generate(subject, options),
  ]);
  certificatePem = { cert: plain.cert, key: plain.private };
  encryptedPem = { cert: encrypted.cert, key: encrypted.private };
  expiredPem = { cert: expired.cert, key: expired.private };
  strangerKey = stranger.private;
  secrets.push(p8, rsaKey, plain.private, encrypted.private, 'mật khẩu');
}, 60_000);
afterAll(async () => {
  await server?.close();
  await graph?.close();
});

const iosToken = (over: Record<string, unknown> = {}) => ({
  status: 'active',
  environment: 'development',
  bundle_id: 'vn.nudge.shop',
  auth: { kind: 'token', key_id: 'ab12cd34ef', team_id: 'TEAM123456', p8, ...over },
});

describe('the platform list', () => {
  it('names every kind, web first, each not configured until saved', async () => {
    const answer = await call('GET', base, { token: owner.token });
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((entry: { kind: string; status: string; settings: unknown }) => [entry.kind, entry.status, entry.settings])).toEqual([
      ['web', 'not_configured', null],
      ['ios', 'not_configured', null],
      ['android', 'not_configured', null],
      ['sms', 'not_configured', null],
      ['facebook', 'not_configured', null],
    ]);
    expect(await activePlatformKinds(server.app.services, APP)).toEqual([]);
  });
});

describe('iOS', () => {
  it('refuses a first save without the .p8 key, and saves nothing', async () => {
    const { p8: _, ...auth } = iosToken().auth;
    const answer = await put('ios', { ...iosToken(), auth });
    expect(answer.status).toBe(400);
    expect(answer.body.fields).toEqual([{ path: 'auth.p8', message: 'This field is required' }]);
    expect(await rowOf('ios')).toBeUndefined();
  });

  it('refuses text that is not a .p8 key and a key that is not EC P-256, beside the field', async () => {
    const notPem = await put('ios', iosToken({ p8: 'MIGTAgEAMBMGByqGSM49AgEGCCqGSM49' }));
    expect(notPem.body.fields).toEqual([{ path: 'auth.p8', message: expect.stringContaining('Paste the .p8 key') }]);
    const rsa = await put('ios', iosToken({ p8: rsaKey }));
    expect(rsa.status).toBe(400);
    expect(rsa.body.fields).toEqual([{ path: 'auth.p8', message: 'This is not an APNs auth key: it must be an EC P-256 private key' }]);
    const badIds = await put('ios', iosToken({ key_id: 'short', team_id: 'has spaces!' }));
    expect(badIds.body.fields).toEqual(
      expect.arrayContaining([
        { path: 'auth.key_id', message: 'Enter the 10 letters and digits of the ID' },
        { path: 'auth.team_id', message: 'Enter the 10 letters and digits of the ID' },
      ]),
    );
    const badTopic = await put('ios', { ...iosToken(), bundle_id: 'not a bundle id', environment: 'staging' });
    expect(badTopic.body.fields.map((field: { path: string }) => field.path).sort()).toEqual(['bundle_id', 'environment']);
    expect(await rowOf('ios')).toBeUndefined();
  });

  it('saves token auth, answers it masked with the key ids, and keeps the key sealed', async () => {
    const answer = await put('ios', iosToken());
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      kind: 'ios',
      status: 'active',
      settings: { environment: 'development', bundle_id: 'vn.nudge.shop', auth: { kind: 'token', key_id: 'AB12CD34EF', team_id: 'TEAM123456' } },
    });
    expect(answer.body.data.settings.auth.p8).toMatch(/^•+ SHA256:/);
    expectHidden(answer, p8, p8.split('\n')[1]);
    expectHidden(await get('ios'), p8, p8.split('\n')[1]);
    await expectSealed('ios', p8);
    expect(await loadChannelCredentials(server.app.services, APP, 'ios')).toEqual({
      kind: 'ios',
      production: false,
      topic: 'vn.nudge.shop',
      auth: { kind: 'token', keyId: 'AB12CD34EF', teamId: 'TEAM123456', key: p8.trim() },
    });
  });

  it('keeps the stored key when saved again without it, and sends nothing while inactive', async () => {
    const before = await rowOf('ios');
    const { p8: _, ...auth } = iosToken().auth;
    const answer = await put('ios', { ...iosToken(), status: 'inactive', environment: 'production', auth });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ status: 'inactive', settings: { environment: 'production', auth: { p8: before && JSON.parse(before.settings).auth.p8 } } });
    expect(await loadChannelCredentials(server.app.services, APP, 'ios')).toBeNull();
    await put('ios', { ...iosToken(), environment: 'production', auth });
    expect(await loadChannelCredentials(server.app.services, APP, 'ios')).toMatchObject({ production: true, auth: { key: p8.trim() } });
  });

  it('changes nothing when a save is refused', async () => {
    const before = await rowOf('ios');
    expect((await put('ios', iosToken({ p8: rsaKey, key_id: 'ZZZZZZZZZZ' }))).status).toBe(400);
    expect(await rowOf('ios')).toEqual(before);
  });

  it('asks for the PEM file when switching to certificate auth, since no certificate is stored', async () => {
    const answer = await put('ios', { ...iosToken(), auth: { kind: 'certificate' } });
    expect(answer.body.fields).toEqual([{ path: 'auth.pem', message: 'This field is required' }]);
  });

  it('refuses a PEM file without its private key, a key of another certificate, and an expired certificate', async () => {
    const before = await rowOf('ios');
    const certificate = (pem: string) => put('ios', { ...iosToken(), auth: { kind: 'certificate', pem } });
    expect((await certificate(certificatePem.cert)).body.fields).toEqual([
      { path: 'auth.pem', message: 'The PEM file must hold the certificate (BEGIN CERTIFICATE) and its private key (BEGIN PRIVATE KEY)' },
    ]);
    expect((await certificate(`${certificatePem.cert}\n${strangerKey}`)).body.fields).toEqual([
      { path: 'auth.pem', message: 'The private key does not belong to this certificate' },
    ]);
    expect((await certificate(`${expiredPem.cert}\n${expiredPem.key}`)).body.fields).toEqual([
      { path: 'auth.pem', message: 'This certificate has expired: create a new one in your Apple Developer account' },
    ]);
    expect(await rowOf('ios')).toEqual(before);
  });

  it('saves certificate auth and reads back who the certificate is for and until when', async () => {
    const pem = `${certificatePem.cert}\n${certificatePem.key}`;
    const answer = await put('ios', { ...iosToken(), environment: 'production', auth: { kind: 'certificate', pem } });
    expect(answer.status).toBe(200);
    const auth = answer.body.data.settings.auth;
    expect(auth).toMatchObject({ kind: 'certificate', has_passphrase: false, certificate: { subject: 'CN=Apple Push Services: vn.nudge.shop' } });
    expect(new Date(auth.certificate.valid_to).getTime()).toBeGreaterThan(Date.now() + 300 * DAY);
    expectHidden(answer, certificatePem.key, certificatePem.key.split('\n')[1]);
    await expectSealed('ios', certificatePem.key);
    const credentials = await loadChannelCredentials(server.app.services, APP, 'ios');
    expect(credentials).toMatchObject({ kind: 'ios', production: true, topic: 'vn.nudge.shop', auth: { kind: 'certificate' } });
    if (credentials?.kind !== 'ios' || credentials.auth.kind !== 'certificate') throw new Error('certificate auth expected');
    expect(credentials.auth.cert.trim()).toBe(certificatePem.cert.trim());
    expect(credentials.auth.key.trim()).toBe(certificatePem.key.trim());
  });

  it('needs the passphrase of an encrypted key, refuses a wrong one, and keeps the right one sealed', async () => {
    const pem = `${encryptedPem.cert}\n${encryptedPem.key}`;
    const certificate = (passphrase?: string) => put('ios', { ...iosToken(), auth: { kind: 'certificate', pem, passphrase } });
    expect((await certificate()).body.fields).toEqual([{ path: 'auth.passphrase', message: 'The private key is encrypted: enter its passphrase' }]);
    expect((await certificate('wrong')).body.fields).toEqual([{ path: 'auth.passphrase', message: 'The passphrase does not open the private key' }]);
    const saved = await certificate('mật khẩu');
    expect(saved.status).toBe(200);
    expect(saved.body.data.settings.auth.has_passphrase).toBe(true);
    expectHidden(saved, 'mật khẩu');
    await expectSealed('ios', 'mật khẩu');
    expect(await loadChannelCredentials(server.app.services, APP, 'ios')).toMatchObject({ auth: { kind: 'certificate', passphrase: 'mật khẩu' } });
  });
});

describe('Android', () => {
  it('refuses what is not a service-account key file, beside the field, and saves nothing', async () => {
    const cases: [string, string][] = [
      ['{ "type": "service_account", ', 'Please enter valid JSON'],
      [JSON.stringify({ ...serviceAccount, type: 'authorized_user' }), 'This is not a service account key file (its type must be service_account)'],
      [JSON.stringify({ ...serviceAccount, client_email: undefined }), 'The key file must have project_id, client_email and private_key'],
      [JSON.stringify({ ...serviceAccount, private_key: 'not a key' }), 'The private_key of this file is not a readable RSA private key'],
      [JSON.stringify({ ...serviceAccount, private_key: p8 }), 'The private_key of this file is not a readable RSA private key'],
      [
        JSON.stringify({ ...serviceAccount, private_key: rsaKey.replace(/\n[A-Za-z0-9+/]{20}/, '\nAAAAAAAAAAAAAAAAAAAA') }),
        'The private_key of this file is not a readable RSA private key',
      ],
    ];
    for (const [text, message] of cases) {
      const answer = await put('android', { status: 'active', service_account: text });
      expect(answer.status, message).toBe(400);
      expect(answer.body.fields).toEqual([{ path: 'service_account', message }]);
    }
    expect((await put('android', { status: 'active' })).body.fields).toEqual([{ path: 'service_account', message: 'This field is required' }]);
    expect(await rowOf('android')).toBeUndefined();
  });

  it('saves the key file and reads back the project and account with the private key masked', async () => {
    const answer = await put('android', { status: 'active', service_account: serviceAccountJson });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      kind: 'android',
      status: 'active',
      settings: { project_id: 'nudge-shop-1234', client_email: serviceAccount.client_email, private_key_id: serviceAccount.private_key_id },
    });
    expect(answer.body.data.settings.private_key).toMatch(/^•+ SHA256:/);
    expectHidden(answer, rsaKey, rsaKey.split('\n')[1]);
    await expectSealed('android', rsaKey);
    expect(await loadChannelCredentials(server.app.services, APP, 'android')).toEqual({
      kind: 'android',
      serviceAccount: {
        project_id: 'nudge-shop-1234',
        client_email: serviceAccount.client_email,
        private_key: rsaKey,
        private_key_id: serviceAccount.private_key_id,
        token_uri: serviceAccount.token_uri,
      },
    });
  });

  it('switches off and on without sending the key file again', async () => {
    expect((await put('android', { status: 'inactive' })).body.data.status).toBe('inactive');
    expect(await loadChannelCredentials(server.app.services, APP, 'android')).toBeNull();
    expect((await put('android', { status: 'active' })).body.data.settings.project_id).toBe('nudge-shop-1234');
    expect(await loadChannelCredentials(server.app.services, APP, 'android')).toMatchObject({ serviceAccount: { private_key: rsaKey } });
  });
});

describe('SMS', () => {
  const sms = (over: Record<string, unknown> = {}) => ({ status: 'active', username: 'nudge_shop', password: 'S3cret-sms-pass', brand_name: 'NUDGESHOP', ...over });

  it('refuses a brand name over 11 characters or with spaces and accents, and a missing password', async () => {
    for (const brand_name of ['NUDGESHOPVN1', 'NUDGE SHOP', 'NUDGEĐẸP']) {
      expect((await put('sms', sms({ brand_name }))).body.fields, brand_name).toEqual([
        { path: 'brand_name', message: 'Up to 11 letters and digits, without spaces or accents' },
      ]);
    }
    expect((await put('sms', sms({ password: undefined }))).body.fields).toEqual([{ path: 'password', message: 'This field is required' }]);
    expect((await put('sms', sms({ password: '  ' }))).body.fields).toEqual([{ path: 'password', message: 'This field is required' }]);
    expect(await rowOf('sms')).toBeUndefined();
  });

  it('saves the account with the password masked and sealed, and keeps it when saved without it', async () => {
    secrets.push('S3cret-sms-pass');
    const answer = await put('sms', sms());
    expect(answer.body.data).toMatchObject({ status: 'active', settings: { username: 'nudge_shop', brand_name: 'NUDGESHOP', password: '••••••••' } });
    expectHidden(answer, 'S3cret-sms-pass');
    await expectSealed('sms', 'S3cret-sms-pass');
    const renamed = await put('sms', sms({ password: undefined, brand_name: 'NUDGE2' }));
    expect(renamed.body.data.settings.brand_name).toBe('NUDGE2');
    expect(await loadChannelCredentials(server.app.services, APP, 'sms')).toEqual({
      kind: 'sms',
      username: 'nudge_shop',
      password: 'S3cret-sms-pass',
      brandName: 'NUDGE2',
    });
  });
});

describe('Facebook page', () => {
  it('checks the page with the Graph API and stores the name it answers', async () => {
    const page = graph.addPage('Cửa hàng Nudge');
    secrets.push(page.token);
    const answer = await put('facebook', { status: 'active', page_id: page.id, page_access_token: page.token });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ status: 'active', settings: { page_id: page.id, page_name: 'Cửa hàng Nudge' } });
    expect(answer.body.data.settings.page_access_token).toBe(`•••••••• ${page.token.slice(-4)}`);
    expectHidden(answer, page.token);
    await expectSealed('facebook', page.token);
    expect(await loadChannelCredentials(server.app.services, APP, 'facebook')).toEqual({ kind: 'facebook', pageId: page.id, pageAccessToken: page.token });
  });

  it("answers the spec's message for a bad token or another page's token, in both languages, and changes nothing", async () => {
    const before = await rowOf('facebook');
    const other = graph.addPage('Another shop');
    const mine = JSON.parse(before!.settings).page_id;
    const bad = await put('facebook', { status: 'active', page_id: mine, page_access_token: 'EAAGnotarealtoken' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: 'INVALID_PARAM', message: 'Can not connect to your page. Retry please!' });
    const wrongPage = await call('PUT', `${base}/facebook`, { token: owner.token, lang: 'vi', body: { status: 'active', page_id: other.id } });
    expect(wrongPage.body.message).toBe('Không thể kết nối tới trang của bạn. Vui lòng thử lại!');
    expect(await rowOf('facebook')).toEqual(before);
  });

  it('switches off without asking the Graph API, and checks again before switching on', async () => {
    const providers = server.config.providers;
    const graphUrl = providers.graphBaseUrl;
    const before = await rowOf('facebook');
    const pageId = JSON.parse(before!.settings).page_id;
    providers.graphBaseUrl = 'http://127.0.0.1:1/v19.0';
    try {
      expect((await put('facebook', { status: 'inactive', page_id: pageId })).body.data.status).toBe('inactive');
      const on = await put('facebook', { status: 'active', page_id: pageId });
      expect(on.body.message).toBe('Can not connect to your page. Retry please!');
      expect((await rowOf('facebook'))!.status).toBe('inactive');
    } finally {
      providers.graphBaseUrl = graphUrl;
    }
    expect((await put('facebook', { status: 'active', page_id: pageId })).body.data).toMatchObject({ status: 'active', settings: { page_name: 'Cửa hàng Nudge' } });
  });

  it('refuses a page id that is not digits before asking anyone', async () => {
    expect((await put('facebook', { status: 'active', page_id: 'cua-hang-nudge', page_access_token: 'x' })).body.fields).toEqual([
      { path: 'page_id', message: 'A page ID is digits only' },
    ]);
  });
});

describe('the platform list once configured', () => {
  it('shows each state and masked settings, and the active kinds include web only once it is switched on', async () => {
    await put('ios', { ...iosToken(), status: 'inactive' });
    const list = await call('GET', base, { token: owner.token });
    expect(list.body.data.map((entry: { kind: string; status: string }) => [entry.kind, entry.status])).toEqual([
      ['web', 'not_configured'],
      ['ios', 'inactive'],
      ['android', 'active'],
      ['sms', 'active'],
      ['facebook', 'active'],
    ]);
    expect(await activePlatformKinds(server.app.services, APP)).toEqual(['android', 'sms', 'facebook']);
    await call('PUT', `${base}/web_push`, {
      token: owner.token,
      body: {
        enabled: true,
        site_url: 'https://shop.example.vn',
        box: { text: 'Nhận tin?', allow_text: 'Có', deny_text: 'Không', delay_seconds: 0, position: 'top' },
      },
    });
    expect(await activePlatformKinds(server.app.services, APP)).toEqual(['web', 'android', 'sms', 'facebook']);
    const web = await loadChannelCredentials(server.app.services, APP, 'web');
    expect(web).toMatchObject({ kind: 'web', iconUrl: null, vapid: { subject: server.config.providers.vapidSubject } });
    expect((await call('GET', base, { token: owner.token })).body.data[0]).toMatchObject({ kind: 'web', status: 'active' });
  });
});

describe('who may see and change platforms (spec §6)', () => {
  it('lets ads managers in, and refuses managers, users and viewers with NO_PERMISSION, changing nothing', async () => {
    const members: Record<string, TestUser> = {};
    for (const role of ['ads_manager', 'manager', 'user', 'viewer']) {
      members[role] = await createUser(server);
      await addMember(server, owner, APP, members[role], role);
    }
    const sms = { status: 'active', username: 'ads_account', brand_name: 'ADS' };
    expect((await put('sms', sms, members.ads_manager.token)).body.data.settings.username).toBe('ads_account');
    expect((await call('GET', base, { token: members.ads_manager.token })).status).toBe(200);
    const before = await rowOf('sms');
    for (const role of ['manager', 'user', 'viewer']) {
      const token = members[role].token;
      expect((await call('GET', base, { token })).body.error, role).toBe('NO_PERMISSION');
      expect((await get('android', token)).body.error, role).toBe('NO_PERMISSION');
      expect((await put('sms', { ...sms, username: role }, token)).body.error, role).toBe('NO_PERMISSION');
    }
    expect(await rowOf('sms')).toEqual(before);
    expect((await call('GET', base)).status).toBe(401);
  });
});

describe('every answer of this file', () => {
  it('carried no secret, whole or by its first line', () => {
    expect(answers.length).toBeGreaterThan(30);
    for (const secret of secrets) {
      const lines = secret.split('\n').filter((line) => line.length > 20 && !line.startsWith('-----'));
      for (const needle of [secret, ...lines]) expect(answers.filter((text) => text.includes(needle))).toEqual([]);
    }
  });
});
