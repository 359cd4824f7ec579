/** The channel senders the delivery engine calls; see ./types for the shared result and backoff. */
export * from './types';
export { ApnsSender, APNS_PRODUCTION_HOST, APNS_SANDBOX_HOST, mapApnsResponse, type ApnsAuth, type ApnsMessage, type ApnsSenderOptions, type ApnsTarget } from './apns';
export { FcmSender, mapFcmError, type FcmMessage, type FcmSenderOptions, type FcmTarget, type ServiceAccount } from './fcm';
export {
  GRAPH_BASE_URL,
  MESSENGER_LIMITS,
  MessengerSender,
  cardProblem,
  checkPage,
  isHttps,
  mapGraphError,
  type MessengerCard,
  type MessengerMessage,
  type MessengerSenderOptions,
  type MessengerTag,
  type MessengerTarget,
  type MessengerUrlButton,
  type PageCheck,
} from './messenger';
export { SMS_MAX_LENGTH, SmsSender, mapSmsResponse, type SmsMessage, type SmsSenderOptions, type SmsTarget } from './sms';
export {
  MAX_PAYLOAD_BYTES,
  WebPushSender,
  encryptWebPushPayload,
  generateVapidKeys,
  mapWebPushResponse,
  type VapidKeys,
  type WebPushMessage,
  type WebPushSenderOptions,
  type WebPushSubscription,
} from './webpush';
