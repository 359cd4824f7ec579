import { BlockStack, Box, Button, ButtonGroup, Card, InlineStack, Text } from '@shopify/polaris';
import { DesktopIcon, MobileIcon } from '@shopify/polaris-icons';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { PublicWidget } from '../../shared/contract';
import { useLanguage } from '../app/i18n';

/** The messages between the console and its preview frame carry this `source`. */
export const PREVIEW_SOURCE = 'nudge-preview';
/** How long the frame has to say it is ready before the console says the preview is unavailable. */
export const PREVIEW_READY_TIMEOUT_MS = 5000;
/** Typing in the editor posts at most this often. */
export const PREVIEW_DEBOUNCE_MS = 150;

export type PreviewDevice = 'desktop' | 'mobile';

/** The frames' sizes in CSS pixels: a small laptop and a common phone. */
export const PREVIEW_FRAMES: Record<PreviewDevice, { width: number; height: number }> = {
  desktop: { width: 1024, height: 640 },
  mobile: { width: 375, height: 667 },
};

/** What the console posts to the frame. */
export interface PreviewMessage {
  source: typeof PREVIEW_SOURCE;
  widget: PublicWidget;
  lang: 'vi' | 'en';
  device: PreviewDevice;
}

const escapeAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The frame's page: a plain shop drawn in greys (a header, a hero, products) so the widget is seen over a
 * page like the ones it will sit on, and the storefront preview script, which renders the real widget code.
 */
export function previewDocument(origin: string): string {
  const style = [
    '*{box-sizing:border-box}',
    'html,body{margin:0;min-height:100%;background:#f6f6f7;font:14px/1.4 system-ui,sans-serif}',
    'header{display:flex;align-items:center;gap:16px;height:64px;padding:0 24px;background:#fff;border-bottom:1px solid #e1e3e5}',
    '.logo{width:96px;height:20px;border-radius:4px;background:#8c9196}',
    '.nav{display:flex;gap:12px;margin-left:auto}.nav i{display:block;width:56px;height:10px;border-radius:5px;background:#d2d5d8}',
    '.hero{margin:24px;height:220px;border-radius:12px;background:linear-gradient(135deg,#e4e5e7,#d2d5d8)}',
    '.grid{display:grid;grid-template-columns:repeat(4,1fr);gap:16px;margin:0 24px 48px}',
    '.card{padding:12px;border-radius:10px;background:#fff;box-shadow:0 1px 2px #0001}',
    '.img{height:140px;border-radius:8px;background:#e4e5e7}',
    '.line{height:10px;margin-top:10px;border-radius:5px;background:#e1e3e5}.short{width:50%}',
    '@media (max-width:640px){.nav{display:none}.hero{margin:16px;height:160px}.grid{grid-template-columns:repeat(2,1fr);margin:0 16px 32px;gap:12px}.img{height:110px}}',
  ].join('');
  const card = '<div class="card"><div class="img"></div><div class="line"></div><div class="line short"></div></div>';
  return [
    '<!doctype html><html><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    `<style>${style}</style></head><body>`,
    '<header><div class="logo"></div><div class="nav"><i></i><i></i><i></i></div></header>',
    '<div class="hero"></div>',
    `<div class="grid">${card.repeat(8)}</div>`,
    `<script type="module" src="${escapeAttribute(origin)}/sdk/preview.js"></script>`,
    '</body></html>',
  ].join('');
}

export interface WidgetPreviewProps {
  /** The widget as a shop's browser would receive it (id 0 for one not saved yet). */
  widget: PublicWidget;
  /** The frame shown first. */
  initialDevice?: PreviewDevice;
}

/**
 * A live preview of a widget being edited, rendered by the real storefront widget code: an isolated frame
 * (its own opaque origin: merchant text in it can't reach the console or its token) loads /sdk/preview.js,
 * which posts `{ source: 'nudge-preview', ready: true }`; from then on every change is posted to it.
 */
export function WidgetPreview({ widget, initialDevice = 'desktop' }: WidgetPreviewProps) {
  const { t } = useTranslation();
  const [device, setDevice] = useState<PreviewDevice>(initialDevice);
  const [ready, setReady] = useState(false);
  const [timedOut, setTimedOut] = useState(false);
  const [width, setWidth] = useState(0);
  const frameRef = useRef<HTMLIFrameElement | null>(null);
  const boxRef = useRef<HTMLDivElement | null>(null);
  const lang = useLanguage();
  const srcDoc = useMemo(() => previewDocument(window.location.origin), []);

  const message = useMemo<PreviewMessage>(() => ({ source: PREVIEW_SOURCE, widget, lang, device }), [widget, lang, device]);
  const latest = useRef(message);
  latest.current = message;

  function post(payload: PreviewMessage) {
    // The frame has an opaque origin, so no origin can be named; it only ever holds our own page.
    frameRef.current?.contentWindow?.postMessage(payload, '*');
  }

  useEffect(() => {
    function onMessage(event: MessageEvent) {
      const frame = frameRef.current?.contentWindow;
      if (!frame || event.source !== frame) return;
      const data = event.data as { source?: unknown; ready?: unknown } | null;
      if (!data || data.source !== PREVIEW_SOURCE || data.ready !== true) return;
      setReady(true);
      setTimedOut(false);
      post(latest.current);
    }
    window.addEventListener('message', onMessage);
    const timer = setTimeout(() => setTimedOut(true), PREVIEW_READY_TIMEOUT_MS);
    return () => {
      window.removeEventListener('message', onMessage);
      clearTimeout(timer);
    };
  }, []);

  useEffect(() => {
    if (!ready) return;
    const timer = setTimeout(() => post(message), PREVIEW_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [ready, message]);

  useLayoutEffect(() => {
    const box = boxRef.current;
    if (!box) return;
    setWidth(box.clientWidth);
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setWidth(box.clientWidth));
    observer.observe(box);
    return () => observer.disconnect();
  }, []);

  const frame = PREVIEW_FRAMES[device];
  const border = device === 'mobile' ? 6 : 1;
  // Scaled down to the column's width, never up; a 0 width (not laid out yet) shows the frame at a third.
  const scale = width > 0 ? Math.min(1, Math.max(0.1, (width - 2 * border) / frame.width)) : 1 / 3;

  return (
    <Card>
      <BlockStack gap="300">
        <InlineStack align="space-between" blockAlign="center" gap="200">
          <Text as="h2" variant="headingMd">
            {t('widgets.preview.title')}
          </Text>
          <ButtonGroup variant="segmented">
            <Button icon={DesktopIcon} pressed={device === 'desktop'} onClick={() => setDevice('desktop')}>
              {t('widgets.devices.desktop')}
            </Button>
            <Button icon={MobileIcon} pressed={device === 'mobile'} onClick={() => setDevice('mobile')}>
              {t('widgets.devices.mobile')}
            </Button>
          </ButtonGroup>
        </InlineStack>
        <div ref={boxRef} style={{ width: '100%' }}>
          <div
            style={{
              position: 'relative',
              width: frame.width * scale,
              height: frame.height * scale,
              margin: '0 auto',
              overflow: 'hidden',
              borderRadius: device === 'mobile' ? 18 : 8,
              border: `${border}px solid var(--p-color-border)`,
              background: '#f6f6f7',
              boxSizing: 'content-box',
            }}
          >
            <iframe
              ref={frameRef}
              title={t('widgets.preview.frameTitle', { device: t(`widgets.devices.${device}`) })}
              srcDoc={srcDoc}
              sandbox="allow-scripts allow-forms"
              data-device={device}
              style={{
                width: frame.width,
                height: frame.height,
                border: 0,
                transform: `scale(${scale})`,
                transformOrigin: '0 0',
                display: 'block',
              }}
            />
            {!ready && timedOut ? (
              <div
                role="status"
                style={{
                  position: 'absolute',
                  inset: 0,
                  display: 'flex',
                  alignItems: 'center',
                  justifyContent: 'center',
                  padding: 16,
                  background: 'rgba(246, 246, 247, 0.92)',
                  textAlign: 'center',
                }}
              >
                <Box maxWidth="280px">
                  <BlockStack gap="100">
                    <Text as="p" fontWeight="semibold">
                      {t('widgets.preview.unavailable')}
                    </Text>
                    <Text as="p" tone="subdued" variant="bodySm">
                      {t('widgets.preview.unavailableHelp')}
                    </Text>
                  </BlockStack>
                </Box>
              </div>
            ) : null}
          </div>
        </div>
        <Text as="p" tone="subdued" variant="bodySm">
          {t('widgets.preview.note')}
        </Text>
      </BlockStack>
    </Card>
  );
}
