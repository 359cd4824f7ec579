import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { EMBEDDED_DEFAULT_LANGUAGE, translate } from '../../shared/i18n';
import { nowIso, type Services } from '../../server/context';
import { isUniqueViolation } from '../../server/db';
import type { ShopRow } from '../../server/db/schema';
import { AppError } from '../../server/errors';
import type { MailMessage } from '../../server/mail';
import { sendError } from '../../server/plugins/errors';
import { customerOf, eraseCustomer, eraseShopCustomers, findCustomerData, phoneCountryOf, type CustomerData } from './privacy';
import { sanitizeShop } from './shop-domain';
import { findShop, markUninstalled } from './shops';

/*
 * The platform's webhooks, at POST /embed/webhooks. The HMAC of the raw body is checked before anything else
 * is read (401 otherwise); each delivery is handled once per (shop, X-Shopify-Webhook-Id), so a redelivery
 * finds its work done and only acknowledges.
 */

/** The path the platform posts every topic to (declare it in the app's configuration). */
export const WEBHOOK_PATH = '/embed/webhooks';

/** True when `hmacHeader` is the base64 HMAC-SHA256 of `body` under `secret`, compared in constant time. */
export function isAuthenticWebhook(secret: string, body: Buffer, hmacHeader: unknown): boolean {
  if (typeof hmacHeader !== 'string' || body.length === 0) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Buffer.from(hmacHeader, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function header(request: FastifyRequest, name: string): string | null {
  const value = request.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text && text.trim() ? text.trim() : null;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The export of a customers/data_request, mailed to the shop's contact address. */
export function dataRequestMail(to: string, shop: string, requestId: string, customer: unknown, data: CustomerData): MailMessage {
  const lang = EMBEDDED_DEFAULT_LANGUAGE;
  const params = { shop, request: requestId };
  const subject = translate(lang, 'embed.dataRequest.subject', params);
  const intro = translate(lang, 'embed.dataRequest.body', params);
  const json = JSON.stringify({ shop, data_request: requestId, customer, ...data }, null, 2);
  return {
    to,
    subject,
    text: `${intro}\n\n${json}\n`,
    html: `<p>${escapeHtml(intro)}</p>\n<pre>${escapeHtml(json)}</pre>`,
  };
}

interface Delivery {
  shop: string;
  topic: string;
  webhookId: string;
  payload: unknown;
}

async function alreadyHandled(s: Services, delivery: Delivery): Promise<boolean> {
  const row = await s.db
    .selectFrom('shop_webhooks')
    .select('webhook_id')
    .where('shop', '=', delivery.shop)
    .where('webhook_id', '=', delivery.webhookId)
    .executeTakeFirst();
  return !!row;
}

/**
 * customers/data_request: the customer's records are found and mailed to the shop before the delivery is
 * recorded, so a mail that fails is retried with the delivery (a race can at worst mail the export twice).
 */
async function handleDataRequest(s: Services, delivery: Delivery, row: ShopRow | undefined): Promise<void> {
  if (await alreadyHandled(s, delivery)) return;
  if (row) {
    const data = await findCustomerData(s.db, row.application_id, customerOf(delivery.payload, await phoneCountryOf(s.db, row.application_id)));
    const requestId = String((delivery.payload as { data_request?: { id?: unknown } })?.data_request?.id ?? delivery.webhookId);
    const customer = (delivery.payload as { customer?: unknown })?.customer ?? null;
    if (row.email) {
      await s.mailer.send(dataRequestMail(row.email, delivery.shop, requestId, customer, data));
    } else {
      s.log.error({ shop: delivery.shop, request: requestId }, 'customer data request: the shop has no contact email to send the export to');
    }
  }
  try {
    await s.db
      .insertInto('shop_webhooks')
      .values({ shop: delivery.shop, webhook_id: delivery.webhookId, topic: delivery.topic, received_at: nowIso(s) })
      .execute();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
}

/** Every other topic: recorded and handled in one transaction; a delivery already recorded does nothing. */
async function handleOnce(s: Services, delivery: Delivery, row: ShopRow | undefined): Promise<void> {
  const now = nowIso(s);
  try {
    await s.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('shop_webhooks')
        .values({ shop: delivery.shop, webhook_id: delivery.webhookId, topic: delivery.topic, received_at: now })
        .execute();
      if (!row) return;
      switch (delivery.topic) {
        case 'app/uninstalled':
          await markUninstalled(trx, delivery.shop, now);
          break;
        case 'app/scopes_update': {
          const current = (delivery.payload as { current?: unknown })?.current;
          if (Array.isArray(current)) {
            const scopes = current.filter((scope): scope is string => typeof scope === 'string').join(',');
            await trx.updateTable('shops').set({ scopes, updated_at: now }).where('shop', '=', delivery.shop).execute();
          }
          break;
        }
        case 'customers/redact': {
          const erased = await eraseCustomer(trx, row.application_id, customerOf(delivery.payload, await phoneCountryOf(trx, row.application_id)));
          s.log.info({ shop: delivery.shop, ...erased }, 'customer redacted');
          break;
        }
        case 'shop/redact': {
          const erased = await eraseShopCustomers(trx, row.application_id);
          await trx.updateTable('shops').set({ access_token: null, email: null, updated_at: now }).where('shop', '=', delivery.shop).execute();
          await trx.deleteFrom('shop_orders').where('shop', '=', delivery.shop).execute();
          s.log.info({ shop: delivery.shop, ...erased }, 'shop redacted');
          break;
        }
        default:
          s.log.info({ shop: delivery.shop, topic: delivery.topic }, 'webhook topic not handled');
      }
    });
  } catch (error) {
    if (isUniqueViolation(error)) return; // a redelivery: done already
    throw error;
  }
}

async function receive(request: FastifyRequest, reply: FastifyReply) {
  const { services } = request.server;
  const config = services.config.shopify;
  if (!config) return sendError(request, reply, new AppError('NOT_FOUND'));
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  // First of all: nothing of an unsigned delivery is read, parsed or logged.
  if (!isAuthenticWebhook(config.apiSecret, body, request.headers['x-shopify-hmac-sha256'])) {
    return sendError(request, reply, new AppError('NOT_AUTHORIZED'));
  }
  const shop = sanitizeShop(header(request, 'x-shopify-shop-domain'));
  const topic = header(request, 'x-shopify-topic');
  const webhookId = header(request, 'x-shopify-webhook-id');
  if (!shop || !topic || !webhookId || webhookId.length > 200 || topic.length > 100) {
    return sendError(request, reply, new AppError('INVALID_PARAM'));
  }
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    return sendError(request, reply, new AppError('INVALID_PARAM'));
  }
  const delivery: Delivery = { shop, topic, webhookId, payload };
  const row = await findShop(services.db, shop);
  if (topic === 'customers/data_request') await handleDataRequest(services, delivery, row);
  else await handleOnce(services, delivery, row);
  return reply.code(200).send({ success: true, data: {} });
}

/** POST /embed/webhooks, in its own scope where bodies stay raw bytes (the HMAC is over the bytes sent). */
export async function webhookRoutes(app: FastifyInstance): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_request, body, done) => done(null, body));
  app.post(WEBHOOK_PATH, { schema: { hide: true } }, receive);
}
