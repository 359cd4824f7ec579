import { BlockStack, Button, ButtonGroup, Card, InlineStack, Text } from '@shopify/polaris';
import { DesktopIcon, MobileIcon } from '@shopify/polaris-icons';
import { type CSSProperties, type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type NotificationType, personalNames, personalize, withUtm } from '../../../shared/contract';
import { useCurrentApplication } from '../../app/application-scope';
import type { ContentDraft } from './notification-form-model';
import { type PreviewPlayer, PreviewPlayerPicker, usePersonalValues } from './preview-player';
import { smsSize } from './sms';

/** Where a push is previewed: an Android phone, an iPhone, or Chrome on a Windows desktop. */
export type PreviewDevice = 'android' | 'ios' | 'desktop';

export interface NotificationPreviewProps {
  type: NotificationType;
  content: ContentDraft;
  /** Shown as the sender: the app's name on phones, the page's name on Messenger, the brand on SMS. */
  appName: string;
  /** The device shown first (push types). */
  initialDevice?: PreviewDevice;
  /** Without the card around it (inside another card). */
  bare?: boolean;
}

const SYSTEM_FONT = '-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

/** Only web addresses are loaded as pictures: what a merchant is still typing is not fetched. */
function picture(url: string): string | null {
  return /^https?:\/\/[^\s/]+\.[^\s]+$/i.test(url.trim()) ? url.trim() : null;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}

function Picture({ url, style, label }: { url: string | null; style: CSSProperties; label?: string }) {
  if (!url) return null;
  return <img src={url} alt={label ?? ''} style={{ display: 'block', objectFit: 'cover', background: '#e4e5e7', ...style }} />;
}

function AppMark({ name, size, radius }: { name: string; size: number; radius: number }) {
  return (
    <span
      aria-hidden
      style={{
        width: size,
        height: size,
        borderRadius: radius,
        background: 'var(--p-color-bg-fill-emphasis)',
        color: '#fff',
        display: 'inline-flex',
        alignItems: 'center',
        justifyContent: 'center',
        fontSize: Math.round(size * 0.55),
        fontWeight: 700,
        flex: 'none',
      }}
    >
      {(name.trim()[0] ?? 'N').toUpperCase()}
    </span>
  );
}

const clamp = (lines: number): CSSProperties => ({
  display: '-webkit-box',
  WebkitLineClamp: lines,
  WebkitBoxOrient: 'vertical',
  overflow: 'hidden',
  overflowWrap: 'anywhere',
  whiteSpace: 'pre-line',
});

interface Shown {
  heading: string;
  body: string;
  thumbnail: string | null;
  image: string | null;
  buttons: string[];
  link: string | null;
}

/** Android's notification shade, expanded: app row, title and text with the large icon, big picture, actions. */
function AndroidPush({ shown, appName, now }: { shown: Shown; appName: string; now: string }) {
  return (
    <div style={{ background: '#f2f3f5', borderRadius: 20, padding: 12, fontFamily: 'Roboto, ' + SYSTEM_FONT }}>
      <div style={{ background: '#fff', borderRadius: 16, padding: '12px 14px', boxShadow: '0 1px 2px rgba(0,0,0,0.12)' }}>
        <div style={{ display: 'flex', alignItems: 'center', gap: 6, fontSize: 12, color: '#5f6368' }}>
          <AppMark name={appName} size={18} radius={9} />
          <span style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>{appName}</span>
          <span>· {now}</span>
        </div>
        <div style={{ display: 'flex', gap: 12, marginTop: 6 }}>
          <div style={{ flex: 1, minWidth: 0 }}>
            <div style={{ fontSize: 14, fontWeight: 600, color: '#202124', ...clamp(1) }}>{shown.heading}</div>
            <div style={{ fontSize: 14, color: '#5f6368', marginTop: 2, ...clamp(shown.image ? 2 : 6) }}>{shown.body}</div>
          </div>
          <Picture url={shown.thumbnail} style={{ width: 40, height: 40, borderRadius: 8, flex: 'none' }} />
        </div>
        <Picture url={shown.image} style={{ width: '100%', height: 140, borderRadius: 10, marginTop: 10 }} />
        {shown.buttons.length > 0 ? (
          <div style={{ display: 'flex', gap: 18, marginTop: 10, flexWrap: 'wrap' }}>
            {shown.buttons.map((text, index) => (
              <span key={index} style={{ fontSize: 14, fontWeight: 600, color: '#1a73e8' }}>
                {text}
              </span>
            ))}
          </div>
        ) : null}
      </div>
    </div>
  );
}

/** An iPhone's notification, pressed open: attachment above, the app row, title and text, then the actions. */
function IosPush({ shown, appName, now }: { shown: Shown; appName: string; now: string }) {
  const glass: CSSProperties = { background: 'rgba(245,245,247,0.96)', borderRadius: 18, overflow: 'hidden', boxShadow: '0 1px 3px rgba(0,0,0,0.15)' };
  return (
    <div style={{ background: 'linear-gradient(160deg,#6e8efb,#a777e3)', borderRadius: 24, padding: 12, fontFamily: SYSTEM_FONT }}>
      <div style={glass}>
        <Picture url={shown.image ?? shown.thumbnail} style={{ width: '100%', height: 150 }} />
        <div style={{ padding: '10px 12px 12px' }}>
          <div style={{ display: 'flex', alignItems: 'center', gap: 6, fontSize: 12, color: '#6e6e73' }}>
            <AppMark name={appName} size={20} radius={5} />
            <span style={{ flex: 1, textTransform: 'uppercase', letterSpacing: 0.3, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>{appName}</span>
            <span>{now}</span>
          </div>
          <div style={{ fontSize: 15, fontWeight: 600, color: '#1d1d1f', marginTop: 6, ...clamp(2) }}>{shown.heading}</div>
          <div style={{ fontSize: 15, color: '#1d1d1f', marginTop: 1, ...clamp(8) }}>{shown.body}</div>
        </div>
      </div>
      {shown.buttons.length > 0 ? (
        <div style={{ ...glass, marginTop: 8 }}>
          {shown.buttons.map((text, index) => (
            <div key={index} style={{ padding: '11px 14px', fontSize: 15, color: '#1d1d1f', borderTop: index === 0 ? undefined : '1px solid rgba(0,0,0,0.1)' }}>
              {text}
            </div>
          ))}
        </div>
      ) : null}
    </div>
  );
}

/** Chrome's notification on Windows: the hero image on top, icon beside title and text, the site, action buttons. */
function DesktopPush({ shown, site, browser }: { shown: Shown; site: string; browser: string }) {
  return (
    <div style={{ background: '#dfe3e8', borderRadius: 8, padding: 12, fontFamily: '"Segoe UI", ' + SYSTEM_FONT }}>
      <div style={{ background: '#2b2b2b', color: '#fff', borderRadius: 8, overflow: 'hidden', boxShadow: '0 4px 12px rgba(0,0,0,0.3)' }}>
        <div style={{ display: 'flex', alignItems: 'center', gap: 8, padding: '8px 12px', fontSize: 12, color: '#c8c8c8' }}>
          <span aria-hidden style={{ width: 14, height: 14, borderRadius: 7, background: 'conic-gradient(#db4437 0 33%, #f4b400 0 66%, #0f9d58 0)', flex: 'none' }} />
          <span style={{ flex: 1 }}>{browser}</span>
          <span aria-hidden>⋯ ✕</span>
        </div>
        <Picture url={shown.image} style={{ width: '100%', height: 150 }} />
        <div style={{ display: 'flex', gap: 12, padding: 12 }}>
          {shown.thumbnail ? <Picture url={shown.thumbnail} style={{ width: 48, height: 48, borderRadius: 4, flex: 'none' }} /> : null}
          <div style={{ minWidth: 0, flex: 1 }}>
            <div style={{ fontSize: 14, fontWeight: 600, ...clamp(2) }}>{shown.heading}</div>
            <div style={{ fontSize: 13, color: '#e0e0e0', marginTop: 2, ...clamp(3) }}>{shown.body}</div>
            <div style={{ fontSize: 12, color: '#a0a0a0', marginTop: 4, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>{site}</div>
          </div>
        </div>
        {shown.buttons.length > 0 ? (
          <div style={{ display: 'flex', gap: 8, padding: '0 12px 12px' }}>
            {shown.buttons.map((text, index) => (
              <span key={index} style={{ flex: 1, minWidth: 0, textAlign: 'center', padding: '7px 8px', borderRadius: 4, background: '#3d3d3d', fontSize: 13, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
                {text}
              </span>
            ))}
          </div>
        ) : null}
      </div>
    </div>
  );
}

/** A phone's messages screen: the sender, and the text in a bubble with its link. */
function SmsBubble({ text, sender }: { text: string; sender: string }) {
  return (
    <div style={{ background: '#fff', border: '1px solid var(--p-color-border)', borderRadius: 24, padding: '14px 12px 18px', fontFamily: SYSTEM_FONT }}>
      <div style={{ textAlign: 'center', fontSize: 12, color: '#6e6e73', marginBottom: 10 }}>
        <AppMark name={sender} size={32} radius={16} />
        <div style={{ marginTop: 4, fontWeight: 600, color: '#1d1d1f' }}>{sender}</div>
      </div>
      <div style={{ maxWidth: '85%', background: '#e9e9eb', color: '#1d1d1f', borderRadius: 18, padding: '8px 12px', fontSize: 15, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{text}</div>
    </div>
  );
}

/** A Messenger conversation: a text bubble, or a card (image, title, text, buttons) when there is more than text. */
function MessengerBubble({ shown, page }: { shown: Shown; page: string }) {
  const card = shown.image !== null || shown.buttons.length > 0;
  return (
    <div style={{ background: '#fff', border: '1px solid var(--p-color-border)', borderRadius: 16, padding: 12, fontFamily: SYSTEM_FONT }}>
      <div style={{ display: 'flex', alignItems: 'center', gap: 8, fontSize: 13, fontWeight: 600, color: '#050505', marginBottom: 10 }}>
        <AppMark name={page} size={28} radius={14} />
        {page}
      </div>
      {card ? (
        <div style={{ maxWidth: 260, border: '1px solid #e4e6eb', borderRadius: 18, overflow: 'hidden' }}>
          <Picture url={shown.image} style={{ width: '100%', height: 136 }} />
          <div style={{ padding: '8px 12px', background: '#f0f2f5' }}>
            <div style={{ fontSize: 14, fontWeight: 600, color: '#050505', ...clamp(2) }}>{shown.heading || shown.body}</div>
            {shown.heading ? <div style={{ fontSize: 13, color: '#65676b', marginTop: 2, ...clamp(3) }}>{shown.body}</div> : null}
          </div>
          {shown.buttons.map((text, index) => (
            <div key={index} style={{ padding: '9px 12px', textAlign: 'center', fontSize: 14, fontWeight: 600, color: '#0866ff', borderTop: '1px solid #e4e6eb' }}>
              {text}
            </div>
          ))}
        </div>
      ) : (
        <div style={{ display: 'inline-block', maxWidth: '85%', background: '#f0f0f0', color: '#050505', borderRadius: 18, padding: '8px 12px', fontSize: 15, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {[shown.heading, shown.body].filter(Boolean).join('\n')}
        </div>
      )}
    </div>
  );
}

/** The SMS the engine sends: the content, then the target link with its UTM parameters. */
export function smsText(content: Pick<ContentDraft, 'content' | 'target_url' | 'utm'>): string {
  const link = content.target_url.trim() ? withUtm(content.target_url.trim(), content.utm) : '';
  return [content.content.trim(), link].filter(Boolean).join('\n');
}

/**
 * How the message will look where it arrives: a push on Android, iOS or a desktop browser (switchable), an SMS
 * in a phone's messages with its length in parts, or a Messenger message. Empty fields show placeholders.
 */
export function NotificationPreview({ type, content: written, appName, initialDevice, bare }: NotificationPreviewProps) {
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const [chosen, setDevice] = useState<PreviewDevice | null>(initialDevice ?? null);
  // A personal message ({{first_name | bạn}}) reads as the chosen player's, else as one without those values.
  const personal = personalNames(written.heading, written.content).length > 0;
  const [player, setPlayer] = useState<PreviewPlayer | null>(null);
  const { values, loading, missing } = usePersonalValues(applicationId, personal ? player : null);
  const content = personal ? { ...written, heading: personalize(written.heading, values), content: personalize(written.content, values) } : written;
  const link = content.target_url.trim() ? withUtm(content.target_url.trim(), content.utm) : null;
  const shown: Shown = {
    // Placeholders stand for what is not written yet, not for a personal value that came out empty.
    heading: content.heading.trim() || (type === 'facebook' || written.heading.trim() ? '' : t('notificationUi.preview.headingPlaceholder')),
    body: content.content.trim() || (written.content.trim() ? '' : t('notificationUi.preview.bodyPlaceholder')),
    thumbnail: picture(content.thumbnail_url),
    image: picture(content.image_url),
    buttons: content.buttons.map((button, index) => button.button_text.trim() || t('notificationUi.buttons.name', { number: index + 1 })),
    link,
  };
  const push = type === 'mobile_push' || type === 'web_push';
  // Web push shows in desktop browsers and in Android's shade; an app's push on Android and iOS.
  const devices: readonly PreviewDevice[] = type === 'web_push' ? ['desktop', 'android'] : ['android', 'ios'];
  const device = chosen && devices.includes(chosen) ? chosen : devices[0];
  const now = t('notificationUi.preview.now');
  const name = appName.trim() || t('common.appName');

  let body: ReactNode;
  let note: ReactNode = null;
  if (type === 'sms') {
    const text = smsText(content);
    const size = smsSize(text);
    body = <SmsBubble text={text || t('notificationUi.preview.bodyPlaceholder')} sender={name} />;
    note = t('notificationUi.preview.smsSize', {
      count: size.units,
      parts: size.parts,
      encoding: t(`notificationUi.preview.encodings.${size.encoding}`),
    });
  } else if (type === 'facebook') {
    body = <MessengerBubble shown={shown} page={name} />;
  } else if (device === 'android') {
    body = <AndroidPush shown={shown} appName={name} now={now} />;
  } else if (device === 'ios') {
    body = <IosPush shown={shown} appName={name} now={now} />;
  } else {
    body = <DesktopPush shown={shown} site={(link && hostOf(link)) ?? name} browser={t('notificationUi.preview.chrome')} />;
  }

  const where = push ? t(`notificationUi.preview.devices.${device}`) : t(`notificationUi.types.${type}`);

  const inner = (
    <BlockStack gap="300">
      <InlineStack align="space-between" blockAlign="center" gap="200">
        <Text as="h2" variant="headingMd">
          {t('notificationUi.preview.title')}
        </Text>
        {push ? (
          <ButtonGroup variant="segmented">
            {devices.map((entry) => (
              <Button key={entry} size="slim" icon={entry === 'desktop' ? DesktopIcon : MobileIcon} pressed={device === entry} onClick={() => setDevice(entry)}>
                {t(`notificationUi.preview.devices.${entry}`)}
              </Button>
            ))}
          </ButtonGroup>
        ) : null}
      </InlineStack>
      {personal ? <PreviewPlayerPicker applicationId={applicationId} player={player} onChange={setPlayer} loading={loading} missing={missing} /> : null}
      <div role="img" aria-label={t('notificationUi.preview.label', { where })} data-device={push ? device : type}>
        {body}
      </div>
      {note ? (
        <Text as="p" variant="bodySm" tone="subdued">
          {note}
        </Text>
      ) : null}
      {link ? (
        <Text as="p" variant="bodySm" tone="subdued" breakWord>
          {t('notificationUi.preview.opens', { url: link })}
        </Text>
      ) : null}
    </BlockStack>
  );
  return bare ? inner : <Card>{inner}</Card>;
}
