/**
 * A local fake of the shop platform (Shopify), on 127.0.0.1 at a random port, signing exactly as the real one
 * does. Point the app at it with `platform.env()` (SHOPIFY_SHOP_BASE_URL, SHOPIFY_ADMIN_URL,
 * SHOPIFY_APP_BRIDGE_URL and the key and secret it was started with).
 *
 * Routes (PORT is the fake's port; `{shop}` a `name.myshopify.com` domain):
 * - GET  /shops/{shop}/admin/oauth/authorize?client_id&scope&redirect_uri&state  the consent screen, approved
 *        at once: 302 to redirect_uri with code, host, shop, state, timestamp and hmac (hex HMAC-SHA256 of the
 *        sorted, form-encoded query without hmac, keyed by the app secret).
 * - POST /shops/{shop}/admin/oauth/access_token  JSON {client_id, client_secret, code} (code grant) or the
 *        token-exchange grant (grant_type urn:ietf:params:oauth:grant-type:token-exchange, subject_token = a
 *        session token of that shop, requested_token_type …offline-access-token) → {access_token, scope}.
 * - POST /shops/{shop}/admin/api/{version}/graphql.json  with X-Shopify-Access-Token: answers
 *        `shop { name email myshopifyDomain timezoneOffsetMinutes billingAddress { countryCodeV2 } }` and `orders(first, sortKey: CREATED_AT, reverse)` from the
 *        fixtures (setShop, setOrders), projected to exactly the fields the query selects, as GraphQL does.
 * - GET  /session-token?shop=…  a freshly signed session token (text/plain, CORS open): what idToken() uses.
 * - GET  /app-bridge.js  the stand-in App Bridge (see APP_BRIDGE_JS below).
 * - GET  /admin/{shop}/apps/{path}  and  GET /shops/{shop}/admin/apps/{api_key}[/{path}]  the admin page:
 *        a platform-like header and an iframe of `{appUrl}/{path}?shop&host&embedded=1&id_token` (path
 *        defaults to shopify-banner).
 *
 * Helpers: sessionToken() signs session tokens (HS256, iss https://{shop}/admin, dest https://{shop}, aud the
 * API key, sub, exp now+60, nbf, iat, jti, sid; other algorithms and claims for the fail-closed tests),
 * host(), signQuery(), webhook()/sendWebhook() (X-Shopify-Hmac-Sha256 = base64 HMAC-SHA256 of the raw body,
 * X-Shopify-Topic, -Shop-Domain, -Webhook-Id, -API-Version).
 *
 * The stand-in App Bridge defines `window.shopify` with config.{apiKey, shop, host}, idToken() (a fresh token
 * from /session-token), toast.show(message, {duration, isError}) (a visible div#shopify-toast for a few
 * seconds), loading(on) (div#shopify-loading), modal.show/hide(id); the custom elements ui-title-bar (its
 * `title` as a heading bar, div#shopify-title-bar, at the top of the frame page, with its child buttons),
 * ui-nav-menu (its child links but the rel="home" one as nav#shopify-nav-menu; a click does history.pushState,
 * keeping the frame's query, and dispatches popstate) and ui-modal (hidden until shown). Like the real one it adds `Authorization: Bearer <fresh token>`
 * to the frame's same-origin fetches that carry none, retries once on `X-Shopify-Retry-Invalid-Session-
 * Request: 1`, and on a page with `shopify-reload` (query parameter or meta) fetches a token and reloads that
 * URL with `id_token`. It reads shop and host from the page's query.
 */
import { createHmac, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, jwtVerify } from 'jose';

export interface ShopPlatformOptions {
  apiKey?: string;
  apiSecret?: string;
  /** The app's public URL (SHOPIFY_APP_URL): OAuth redirects must go back to it, the admin page frames it. */
  appUrl: string;
  /** The scopes the platform grants (the app's request is granted as asked when unset). */
  grantedScopes?: string;
}

/** A shop's details as the Admin API reports them. */
export interface FakeShop {
  name: string;
  email: string;
  /** The shop's timezone now, minutes east of UTC (the Admin API's Shop.timezoneOffsetMinutes). */
  timezoneOffsetMinutes: number;
  /** The shop's country (Shop.billingAddress.countryCodeV2); Vietnam when not given. */
  countryCode?: string;
}

/**
 * An order as the Admin API would return it in full; the fake answers only the fields a query selects, so
 * fixtures may (and should) carry what the app must never ask for: last names, emails, address lines.
 */
export interface FakeOrder {
  createdAt: string;
  email?: string | null;
  phone?: string | null;
  customer?: { firstName?: string | null; lastName?: string | null; email?: string | null } | null;
  shippingAddress?: FakeAddress | null;
  billingAddress?: FakeAddress | null;
  lineItems: { nodes: { title: string; image?: { url: string } | null; product?: { title: string } | null }[] };
}
export interface FakeAddress {
  firstName?: string | null;
  lastName?: string | null;
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  zip?: string | null;
  phone?: string | null;
}

export interface SessionTokenOptions {
  /** Signing algorithm: HS256 (the real one), or `none` / RS256 for the fail-closed tests. */
  alg?: 'HS256' | 'none' | 'RS256';
  /** HS256 key; the app's secret by default. */
  secret?: string;
  /** "Now" for iat/nbf/exp; the real clock by default. */
  now?: Date;
  /** Seconds from now to exp (60 by default); negative for an expired token. */
  expiresIn?: number;
  /** Claims replacing the real ones (aud, dest, iss…); `undefined` removes a claim. */
  claims?: Record<string, unknown>;
}

export interface Webhook {
  headers: Record<string, string>;
  body: string;
}

export interface ShopPlatform {
  /** http://127.0.0.1:PORT */
  url: string;
  apiKey: string;
  apiSecret: string;
  /** SHOPIFY_SHOP_BASE_URL for the app: `http://127.0.0.1:PORT/shops/{shop}`. */
  shopBaseUrl: string;
  /** SHOPIFY_APP_BRIDGE_URL for the app. */
  appBridgeUrl: string;
  /** The environment that points the app at this fake. */
  env(): Record<string, string>;
  setShop(shop: string, details: Partial<FakeShop>): void;
  setOrders(shop: string, orders: FakeOrder[]): void;
  /** Makes the shop's Admin API answer this HTTP status (null: answer again). */
  failAdminApi(shop: string, status: number | null): void;
  /** Every request the fake received, for "called once" checks. */
  requests(): { method: string; path: string }[];
  /** The offline tokens issued to a shop and not revoked. */
  accessTokens(shop: string): string[];
  /** Revokes the shop's offline tokens, as an uninstall does. */
  revokeAccess(shop: string): void;
  sessionToken(shop: string, options?: SessionTokenOptions): Promise<string>;
  /** The `host` parameter of the shop's admin: base64 of `{shop}/admin`, unpadded. */
  host(shop: string): string;
  /** The hex HMAC of an OAuth query, as the platform signs the callback. */
  signQuery(query: Record<string, string>, secret?: string): string;
  /** A signed webhook delivery. */
  webhook(topic: string, shop: string, payload: unknown, options?: { id?: string; secret?: string; apiVersion?: string }): Webhook;
  /** Posts a signed webhook to `url` (the app's /embed/webhooks). */
  sendWebhook(url: string, topic: string, shop: string, payload: unknown, options?: { id?: string }): Promise<Response>;
  close(): Promise<void>;
}

const SHOP = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

/** The message the platform signs for an OAuth callback: sorted keys, form-encoded, spaces as %20. */
function signedMessage(query: Record<string, string>): string {
  const params = new URLSearchParams();
  for (const key of Object.keys(query).sort((a, b) => a.localeCompare(b))) {
    if (key !== 'hmac' && key !== 'signature') params.append(key, query[key]);
  }
  return params.toString().replace(/\+/g, '%20');
}

function hostOf(shop: string): string {
  return Buffer.from(`${shop}/admin`).toString('base64').replace(/=+$/, '');
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

// ---- a small GraphQL reader: selection sets with arguments and variables, no fragments ----

interface Field {
  name: string;
  args: Record<string, unknown>;
  selection: Field[] | null;
}

function tokenize(source: string): string[] {
  return source.match(/\.\.\.|[A-Za-z_][A-Za-z0-9_]*|\$[A-Za-z_][A-Za-z0-9_]*|-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*"|[{}():!,[\]=@]/g) ?? [];
}

function parseOperation(source: string): Field[] {
  const tokens = tokenize(source);
  let i = 0;
  const peek = () => tokens[i];
  const next = () => tokens[i++];
  const value = (): unknown => {
    const token = next();
    if (token.startsWith('"')) return JSON.parse(token);
    if (/^-?\d/.test(token)) return Number(token);
    if (token === 'true' || token === 'false') return token === 'true';
    if (token === 'null') return null;
    return token; // a variable ($first) or an enum (CREATED_AT)
  };
  const selection = (): Field[] => {
    const fields: Field[] = [];
    if (next() !== '{') throw new Error('expected {');
    while (peek() !== '}') {
      let name = next();
      if (peek() === ':') {
        next(); // an alias: answered under the field's own name here, which is enough for this app
        name = next();
      }
      const args: Record<string, unknown> = {};
      if (peek() === '(') {
        next();
        while (peek() !== ')') {
          const key = next();
          if (next() !== ':') throw new Error('expected :');
          args[key] = value();
          if (peek() === ',') next();
        }
        next();
      }
      fields.push({ name, args, selection: peek() === '{' ? selection() : null });
      if (peek() === ',') next();
    }
    next();
    return fields;
  };
  // Skip `query Name($a: Int!)` up to the operation's selection set.
  while (i < tokens.length && peek() !== '{') {
    if (next() === '(') while (next() !== ')');
  }
  return selection();
}

function project(value: unknown, field: Field, variables: Record<string, unknown>): unknown {
  if (value === undefined || value === null) return null;
  if (!field.selection) return value;
  if (Array.isArray(value)) return value.map((item) => project(item, field, variables));
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const child of field.selection) {
    let childValue = record[child.name];
    const first = resolveArg(child.args.first, variables);
    if (typeof first === 'number' && childValue && typeof childValue === 'object' && 'nodes' in childValue) {
      const nodes = (childValue as { nodes: unknown[] }).nodes.slice(0, first);
      childValue = { ...(childValue as object), nodes };
    }
    out[child.name] = project(childValue, child, variables);
  }
  return out;
}

function resolveArg(value: unknown, variables: Record<string, unknown>): unknown {
  return typeof value === 'string' && value.startsWith('$') ? variables[value.slice(1)] : value;
}

// ---- the stand-in App Bridge ----

const APP_BRIDGE_JS = String.raw`(function () {
  'use strict';
  var script = document.currentScript;
  var origin = new URL(script.src).origin;
  var params = new URLSearchParams(location.search);
  var meta = document.querySelector('meta[name="shopify-api-key"]');
  var apiKey = (meta && meta.getAttribute('content')) || script.getAttribute('data-api-key') || '';
  var shop = params.get('shop') || '';
  var host = params.get('host') || '';

  function idToken() {
    return fetch(origin + '/session-token?shop=' + encodeURIComponent(shop)).then(function (r) {
      if (!r.ok) throw new Error('the platform handed out no session token');
      return r.text();
    });
  }

  function onBody(run) {
    if (document.body) run();
    else document.addEventListener('DOMContentLoaded', run);
  }

  function box(id, style) {
    var el = document.getElementById(id);
    if (!el) {
      el = document.createElement('div');
      el.id = id;
      el.setAttribute('style', style);
      document.body.appendChild(el);
    }
    return el;
  }

  var toastTimer = null;
  var modals = {};
  var shopify = {
    config: { apiKey: apiKey, shop: shop, host: host, locale: 'en' },
    environment: { embedded: true, mobile: false, pos: false },
    origin: origin,
    idToken: idToken,
    toast: {
      show: function (message, opts) {
        opts = opts || {};
        onBody(function () {
          var el = box('shopify-toast', 'position:fixed;left:50%;bottom:24px;transform:translateX(-50%);z-index:2147483647;padding:12px 16px;border-radius:8px;font:14px/1.4 system-ui,sans-serif;color:#fff;box-shadow:0 4px 12px rgba(0,0,0,.25)');
          el.textContent = String(message);
          el.setAttribute('role', 'status');
          el.style.background = opts.isError ? '#c70a24' : '#303030';
          el.style.display = 'block';
          clearTimeout(toastTimer);
          toastTimer = setTimeout(function () { el.remove(); }, opts.duration || 4000);
        });
        return 'toast';
      },
      hide: function () { var el = document.getElementById('shopify-toast'); if (el) el.remove(); }
    },
    loading: function (on) {
      onBody(function () {
        var el = box('shopify-loading', 'position:fixed;top:0;left:0;right:0;height:3px;background:#2c6ecb;z-index:2147483647');
        el.style.display = on ? 'block' : 'none';
      });
    },
    modal: {
      show: function (id) { var m = document.getElementById(id); if (m && m.show) m.show(); },
      hide: function (id) { var m = document.getElementById(id); if (m && m.hide) m.hide(); },
      toggle: function (id) { var m = document.getElementById(id); if (m) (m.hasAttribute('open') ? m.hide() : m.show()); }
    }
  };
  window.shopify = shopify;

  // Like App Bridge: a fresh session token on the app's own fetches, one retry when the server asks for it.
  var nativeFetch = window.fetch.bind(window);
  window.fetch = function (input, init) {
    var url = new URL(typeof input === 'string' || input instanceof URL ? String(input) : input.url, location.href);
    if (url.origin !== location.origin) return nativeFetch(input, init);
    function attempt() {
      var headers = new Headers((init && init.headers) || (input instanceof Request ? input.headers : undefined));
      if (headers.has('authorization')) return nativeFetch(input, init);
      return idToken().then(function (token) {
        headers.set('authorization', 'Bearer ' + token);
        return nativeFetch(input, Object.assign({}, init, { headers: headers }));
      });
    }
    return attempt().then(function (response) {
      if (response.status === 401 && response.headers.get('x-shopify-retry-invalid-session-request') === '1') return attempt();
      return response;
    });
  };

  // The bounce page: a fresh token, then back to the page that needed one.
  var reloadMeta = document.querySelector('meta[name="shopify-reload"]');
  var reload = params.get('shopify-reload') || (reloadMeta && reloadMeta.getAttribute('content'));
  if (reload) {
    idToken().then(function (token) {
      var target = new URL(reload, location.href);
      target.searchParams.set('id_token', token);
      location.replace(target.toString());
    });
  }

  function topBar(id, tag) {
    var el = document.getElementById(id);
    if (!el) {
      el = document.createElement(tag);
      el.id = id;
      var before = id === 'shopify-title-bar' ? document.body.firstChild : (document.getElementById('shopify-title-bar') || {}).nextSibling || document.body.firstChild;
      document.body.insertBefore(el, before || null);
    }
    return el;
  }

  function watch(element, render) {
    var observer = new MutationObserver(render);
    observer.observe(element, { childList: true, subtree: true, attributes: true, characterData: true });
    element._observer = observer;
    queueMicrotask(render);
  }

  customElements.define('ui-title-bar', class extends HTMLElement {
    static get observedAttributes() { return ['title']; }
    connectedCallback() { this.style.display = 'none'; var self = this; watch(this, function () { self.render(); }); }
    disconnectedCallback() { if (this._observer) this._observer.disconnect(); var bar = document.getElementById('shopify-title-bar'); if (bar && bar._owner === this) bar.remove(); }
    attributeChangedCallback() { if (this.isConnected) this.render(); }
    render() {
      var bar = topBar('shopify-title-bar', 'div');
      bar._owner = this;
      bar.setAttribute('style', 'display:flex;align-items:center;gap:8px;padding:10px 16px;background:#f1f1f1;border-bottom:1px solid #dcdcdc;font:600 16px/1.4 system-ui,sans-serif');
      bar.textContent = '';
      var heading = document.createElement('h1');
      heading.setAttribute('style', 'margin:0;flex:1;font:inherit');
      heading.textContent = this.getAttribute('title') || '';
      bar.appendChild(heading);
      Array.prototype.forEach.call(this.querySelectorAll('button'), function (original) {
        var copy = document.createElement('button');
        copy.type = 'button';
        copy.textContent = original.textContent;
        copy.disabled = original.disabled;
        copy.addEventListener('click', function () { original.click(); });
        bar.appendChild(copy);
      });
    }
  });

  customElements.define('ui-nav-menu', class extends HTMLElement {
    connectedCallback() { this.style.display = 'none'; var self = this; watch(this, function () { self.render(); }); }
    disconnectedCallback() { if (this._observer) this._observer.disconnect(); var nav = document.getElementById('shopify-nav-menu'); if (nav && nav._owner === this) nav.remove(); }
    render() {
      var nav = topBar('shopify-nav-menu', 'nav');
      nav._owner = this;
      nav.setAttribute('aria-label', 'App navigation');
      nav.setAttribute('style', 'display:flex;flex-wrap:wrap;gap:4px 16px;padding:8px 16px;background:#fafafa;border-bottom:1px solid #e3e3e3;font:14px/1.4 system-ui,sans-serif');
      nav.textContent = '';
      Array.prototype.forEach.call(this.querySelectorAll('a'), function (original) {
        if (original.getAttribute('rel') === 'home') return;
        var link = document.createElement('a');
        var href = original.getAttribute('href') || '/';
        link.href = href;
        link.textContent = original.textContent;
        link.addEventListener('click', function (event) {
          event.preventDefault();
          // The frame's shop and host stay on the URL, so a reload still knows where it is.
          history.pushState(null, '', href.indexOf('?') === -1 ? href + location.search : href);
          dispatchEvent(new PopStateEvent('popstate', { state: null }));
        });
        nav.appendChild(link);
      });
    }
  });

  customElements.define('ui-modal', class extends HTMLElement {
    connectedCallback() { if (!this.hasAttribute('open')) this.style.display = 'none'; }
    show() {
      this.setAttribute('open', '');
      this.setAttribute('style', 'display:block;position:fixed;inset:10% 10% auto 10%;max-height:80%;overflow:auto;background:#fff;border-radius:12px;box-shadow:0 8px 32px rgba(0,0,0,.35);padding:16px;z-index:2147483646');
      this.dispatchEvent(new Event('show'));
    }
    hide() { this.removeAttribute('open'); this.style.display = 'none'; this.dispatchEvent(new Event('hide')); }
  });
})();
`;

function adminPage(options: { shop: string; iframeSrc: string; appName: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.shop)} · Admin (local fake)</title>
<style>
  html, body { margin: 0; height: 100%; font: 14px/1.4 system-ui, sans-serif; }
  body { display: flex; flex-direction: column; background: #ebebeb; }
  header { display: flex; align-items: center; gap: 12px; padding: 8px 16px; background: #1a1a1a; color: #e3e3e3; }
  header strong { color: #fff; }
  main { flex: 1; display: flex; padding: 8px; min-height: 0; }
  iframe { flex: 1; border: 0; border-radius: 8px; background: #fff; }
</style>
</head>
<body>
<header><strong>Shop admin</strong><span>${escapeHtml(options.shop)}</span><span>› Apps › ${escapeHtml(options.appName)}</span></header>
<main><iframe name="app-iframe" title="${escapeHtml(options.appName)}" src="${escapeHtml(options.iframeSrc)}"></iframe></main>
</body>
</html>`;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, {
    'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
    ...headers,
  });
  response.end(text);
}

/** Starts the fake platform for one app (key, secret, URL). */
export async function startShopPlatform(options: ShopPlatformOptions): Promise<ShopPlatform> {
  const apiKey = options.apiKey ?? `key${randomBytes(8).toString('hex')}`;
  const apiSecret = options.apiSecret ?? `shpss_${randomBytes(16).toString('hex')}`;
  const appUrl = options.appUrl.replace(/\/+$/, '');
  const shops = new Map<string, FakeShop>();
  const orders = new Map<string, FakeOrder[]>();
  const failures = new Map<string, number>();
  const codes = new Map<string, { shop: string; scope: string; used: boolean }>();
  const tokens = new Map<string, { shop: string; revoked: boolean }>();
  const log: { method: string; path: string }[] = [];
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });

  const shopOf = (shop: string): FakeShop =>
    shops.get(shop) ?? { name: shop.split('.')[0], email: `owner@${shop.split('.')[0]}.example`, timezoneOffsetMinutes: 420 };

  async function sessionToken(shop: string, tokenOptions: SessionTokenOptions = {}): Promise<string> {
    const now = Math.floor((tokenOptions.now ?? new Date()).getTime() / 1000);
    const claims: Record<string, unknown> = {
      iss: `https://${shop}/admin`,
      dest: `https://${shop}`,
      aud: apiKey,
      sub: '42',
      exp: now + (tokenOptions.expiresIn ?? 60),
      nbf: now,
      iat: now,
      jti: randomUUID(),
      sid: randomBytes(16).toString('hex'),
    };
    for (const [key, value] of Object.entries(tokenOptions.claims ?? {})) {
      if (value === undefined) delete claims[key];
      else claims[key] = value;
    }
    const alg = tokenOptions.alg ?? 'HS256';
    if (alg === 'none') {
      const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
    }
    const jwt = new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' });
    return alg === 'RS256' ? jwt.sign(rsa.privateKey) : jwt.sign(new TextEncoder().encode(tokenOptions.secret ?? apiSecret));
  }

  function issueToken(shop: string, scope: string): { access_token: string; scope: string } {
    const token = `shpat_${randomBytes(16).toString('hex')}`;
    tokens.set(token, { shop, revoked: false });
    return { access_token: token, scope };
  }

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname;
    const shopRoute = /^\/shops\/([^/]+)(\/.*)$/.exec(path);

    if (request.method === 'GET' && path === '/app-bridge.js') {
      return send(response, 200, APP_BRIDGE_JS, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
    }
    if (request.method === 'OPTIONS') {
      response.writeHead(204, { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-allow-methods': 'GET, POST' });
      return void response.end();
    }
    if (request.method === 'GET' && path === '/session-token') {
      const shop = url.searchParams.get('shop') ?? '';
      if (!SHOP.test(shop)) return send(response, 400, 'unknown shop', { 'access-control-allow-origin': '*' });
      return send(response, 200, await sessionToken(shop), { 'access-control-allow-origin': '*', 'cache-control': 'no-store' });
    }

    const adminRoute = /^\/admin\/([^/]+)\/apps(?:\/(.*))?$/.exec(path);
    const shopAdminRoute = shopRoute && /^\/admin\/apps\/([^/]+)(?:\/(.*))?$/.exec(shopRoute[2]);
    if (request.method === 'GET' && (adminRoute || shopAdminRoute)) {
      const shop = adminRoute ? adminRoute[1] : shopRoute![1];
      if (!SHOP.test(shop)) return send(response, 404, 'no such shop');
      const appPath = (adminRoute ? adminRoute[2] : shopAdminRoute![2]) || 'shopify-banner';
      const src = new URL(`${appUrl}/${appPath}`);
      src.searchParams.set('shop', shop);
      src.searchParams.set('host', hostOf(shop));
      src.searchParams.set('embedded', '1');
      src.searchParams.set('id_token', await sessionToken(shop));
      return send(response, 200, adminPage({ shop, iframeSrc: src.toString(), appName: 'Nudge' }), { 'content-type': 'text/html; charset=utf-8' });
    }

    if (!shopRoute || !SHOP.test(shopRoute[1])) return send(response, 404, { errors: 'Not Found' });
    const shop = shopRoute[1];
    const rest = shopRoute[2];

    if (request.method === 'GET' && rest === '/admin/oauth/authorize') {
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      if (url.searchParams.get('client_id') !== apiKey) return send(response, 400, 'Oauth error invalid_request: The client_id is not valid');
      if (redirectUri !== `${appUrl}/auth/callback`) return send(response, 400, 'Oauth error invalid_request: The redirect_uri is not whitelisted');
      const code = randomBytes(16).toString('hex');
      codes.set(code, { shop, scope: options.grantedScopes ?? url.searchParams.get('scope') ?? '', used: false });
      const query: Record<string, string> = {
        code,
        host: hostOf(shop),
        shop,
        state: url.searchParams.get('state') ?? '',
        timestamp: String(Math.floor(Date.now() / 1000)),
      };
      const callback = new URL(redirectUri);
      for (const [key, value] of Object.entries(query)) callback.searchParams.set(key, value);
      callback.searchParams.set('hmac', createHmac('sha256', apiSecret).update(signedMessage(query)).digest('hex'));
      response.writeHead(302, { location: callback.toString() });
      return void response.end();
    }

    if (request.method === 'POST' && rest === '/admin/oauth/access_token') {
      let body: Record<string, string>;
      try {
        body = JSON.parse(await readBody(request)) as Record<string, string>;
      } catch {
        return send(response, 400, { error: 'invalid_request' });
      }
      if (body.client_id !== apiKey || body.client_secret !== apiSecret) {
        return send(response, 400, { error: 'invalid_client', error_description: 'Client credentials are invalid' });
      }
      if (body.grant_type === 'urn:ietf:params:oauth:grant-type:token-exchange') {
        if (body.subject_token_type !== 'urn:ietf:params:oauth:token-type:id_token') return send(response, 400, { error: 'invalid_request' });
        try {
          const { payload } = await jwtVerify(body.subject_token ?? '', new TextEncoder().encode(apiSecret), {
            algorithms: ['HS256'],
            audience: apiKey,
            clockTolerance: 10,
          });
          if (payload.dest !== `https://${shop}`) throw new Error('another shop');
        } catch {
          return send(response, 400, { error: 'invalid_subject_token', error_description: 'The subject token is invalid.' });
        }
        if (body.requested_token_type !== 'urn:shopify:params:oauth:token-type:offline-access-token') {
          return send(response, 400, { error: 'invalid_request', error_description: 'This app only asks for offline tokens here.' });
        }
        return send(response, 200, issueToken(shop, options.grantedScopes ?? 'read_orders'));
      }
      const grant = codes.get(body.code ?? '');
      if (!grant || grant.used || grant.shop !== shop) return send(response, 400, { error: 'invalid_request', error_description: 'The authorization code was not found or was already used' });
      grant.used = true;
      return send(response, 200, issueToken(shop, grant.scope));
    }

    const graphql = /^\/admin\/api\/([^/]+)\/graphql\.json$/.exec(rest);
    if (request.method === 'POST' && graphql) {
      const token = request.headers['x-shopify-access-token'];
      const grant = typeof token === 'string' ? tokens.get(token) : undefined;
      if (!grant || grant.revoked || grant.shop !== shop) {
        return send(response, 401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
      }
      const failure = failures.get(shop);
      if (failure) return send(response, failure, { errors: 'Internal error' });
      let body: { query?: string; variables?: Record<string, unknown> };
      try {
        body = JSON.parse(await readBody(request)) as typeof body;
      } catch {
        return send(response, 400, { errors: 'Bad Request' });
      }
      let fields: Field[];
      try {
        fields = parseOperation(body.query ?? '');
      } catch (error) {
        return send(response, 200, { errors: [{ message: `syntax error: ${(error as Error).message}` }] });
      }
      const variables = body.variables ?? {};
      const details = shopOf(shop);
      const root: Record<string, unknown> = {
        shop: {
          name: details.name,
          email: details.email,
          myshopifyDomain: shop,
          timezoneOffsetMinutes: details.timezoneOffsetMinutes,
          billingAddress: { countryCodeV2: details.countryCode ?? 'VN' },
        },
      };
      const data: Record<string, unknown> = {};
      for (const field of fields) {
        if (field.name === 'orders') {
          const all = [...(orders.get(shop) ?? [])].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
          if (resolveArg(field.args.reverse, variables) === true) all.reverse();
          data.orders = project({ nodes: all.slice(0, Number(resolveArg(field.args.first, variables) ?? 50)) }, field, variables);
        } else {
          data[field.name] = project(root[field.name], field, variables);
        }
      }
      return send(response, 200, { data });
    }

    return send(response, 404, { errors: 'Not Found' });
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    log.push({ method: request.method ?? 'GET', path: url.pathname });
    handle(request, response, url).catch((error: unknown) => send(response, 500, { errors: String(error) }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function webhook(topic: string, shop: string, payload: unknown, hookOptions: { id?: string; secret?: string; apiVersion?: string } = {}): Webhook {
    const body = JSON.stringify(payload);
    return {
      body,
      headers: {
        'content-type': 'application/json',
        'x-shopify-topic': topic,
        'x-shopify-shop-domain': shop,
        'x-shopify-webhook-id': hookOptions.id ?? randomUUID(),
        'x-shopify-api-version': hookOptions.apiVersion ?? '2025-10',
        'x-shopify-triggered-at': new Date().toISOString(),
        'x-shopify-hmac-sha256': createHmac('sha256', hookOptions.secret ?? apiSecret).update(body).digest('base64'),
      },
    };
  }

  return {
    url: base,
    apiKey,
    apiSecret,
    shopBaseUrl: `${base}/shops/{shop}`,
    appBridgeUrl: `${base}/app-bridge.js`,
    env: () => ({
      SHOPIFY_API_KEY: apiKey,
      SHOPIFY_API_SECRET: apiSecret,
      SHOPIFY_APP_URL: appUrl,
      SHOPIFY_SHOP_BASE_URL: `${base}/shops/{shop}`,
      SHOPIFY_ADMIN_URL: base,
      SHOPIFY_APP_BRIDGE_URL: `${base}/app-bridge.js`,
    }),
    setShop: (shop, details) => void shops.set(shop, { ...shopOf(shop), ...details }),
    setOrders: (shop, list) => void orders.set(shop, list),
    failAdminApi: (shop, status) => void (status === null ? failures.delete(shop) : failures.set(shop, status)),
    requests: () => [...log],
    accessTokens: (shop) => [...tokens].filter(([, grant]) => grant.shop === shop && !grant.revoked).map(([token]) => token),
    revokeAccess: (shop) => {
      for (const grant of tokens.values()) if (grant.shop === shop) grant.revoked = true;
    },
    sessionToken,
    host: hostOf,
    signQuery: (query, secret = apiSecret) => createHmac('sha256', secret).update(signedMessage(query)).digest('hex'),
    webhook,
    async sendWebhook(url, topic, shop, payload, hookOptions = {}) {
      const delivery = webhook(topic, shop, payload, hookOptions);
      return fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

