import { BlockStack, Box, Button, Checkbox, FormLayout, InlineGrid, InlineStack, Select, Text, TextField } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import {
  DEFAULT_SUBSCRIPTION_BOX,
  DEFAULT_SW_PATH,
  SUBSCRIPTION_BOX_POSITIONS,
  WebPushPlatform,
  WebPushSettings,
  type PlatformState,
  type SubscriptionBoxPosition,
} from '../../../shared/contract';
import { copyText } from '../../components/clipboard';
import { useAppStore } from '../../stores/store';
import { PlatformCard, usePlatformForm } from './platform-card';

/** The form's values: every field as text, as the inputs hold them. */
interface Draft {
  enabled: boolean;
  site_url: string;
  icon_url: string;
  sw_path: string;
  text: string;
  allow_text: string;
  deny_text: string;
  delay_seconds: string;
  position: SubscriptionBoxPosition;
}

function draftOf(settings: WebPushSettings | null): Draft {
  const box = settings?.box ?? DEFAULT_SUBSCRIPTION_BOX;
  return {
    enabled: settings?.enabled ?? false,
    site_url: settings?.site_url ?? '',
    icon_url: settings?.icon_url ?? '',
    sw_path: settings?.sw_path ?? DEFAULT_SW_PATH,
    text: box.text,
    allow_text: box.allow_text,
    deny_text: box.deny_text,
    delay_seconds: String(box.delay_seconds),
    position: box.position,
  };
}

function bodyOf(draft: Draft) {
  return {
    enabled: draft.enabled,
    site_url: draft.site_url,
    icon_url: draft.icon_url,
    sw_path: draft.sw_path,
    box: {
      text: draft.text,
      allow_text: draft.allow_text,
      deny_text: draft.deny_text,
      delay_seconds: draft.delay_seconds.trim() === '' ? Number.NaN : Number(draft.delay_seconds),
      position: draft.position,
    },
  };
}

/** Web push's state as the other platforms show theirs: never saved, on, or off. */
export function webPushState(platform: WebPushPlatform): PlatformState {
  if (!platform.settings) return 'not_configured';
  return platform.settings.enabled ? 'active' : 'inactive';
}

/** The file the merchant hosts at the service worker path: it loads Nudge's worker code. */
export function workerFileLine(origin: string): string {
  return `importScripts('${origin}/sdk/sw.js');`;
}

/** A small picture of the subscription box where it will sit, in its texts. */
function BoxPreview({ draft }: { draft: Draft }) {
  const { t } = useTranslation();
  const at = draft.position;
  const placement: Record<SubscriptionBoxPosition, { justify: string; align: string }> = {
    top: { justify: 'center', align: 'flex-start' },
    center: { justify: 'center', align: 'center' },
    bottom_left: { justify: 'flex-start', align: 'flex-end' },
    bottom_right: { justify: 'flex-end', align: 'flex-end' },
  };
  return (
    <div
      role="img"
      aria-label={t('webPush.preview')}
      style={{
        display: 'flex',
        justifyContent: placement[at].justify,
        alignItems: placement[at].align,
        minHeight: 200,
        padding: 12,
        borderRadius: 8,
        background: 'var(--p-color-bg-surface-secondary)',
        border: '1px dashed var(--p-color-border)',
      }}
    >
      <div
        data-testid="box-preview"
        style={{
          width: at === 'top' ? '100%' : 'min(260px, 100%)',
          padding: 12,
          borderRadius: 10,
          background: '#fff',
          boxShadow: '0 4px 16px #0002',
        }}
      >
        <BlockStack gap="200">
          <Text as="p">{draft.text}</Text>
          <InlineStack gap="200" align="end">
            <Button size="slim">{draft.deny_text}</Button>
            <Button size="slim" variant="primary">
              {draft.allow_text}
            </Button>
          </InlineStack>
        </BlockStack>
      </div>
    </div>
  );
}

export interface WebPushCardProps {
  applicationId: string;
  platform: WebPushPlatform;
  /** Called with the platform once saved. */
  onSaved(next: WebPushPlatform): void;
}

/** The web push card: on/off, the shop's URLs, the service worker path and the subscription box. */
export function WebPushCard({ applicationId, platform, onSaved }: WebPushCardProps) {
  const { t } = useTranslation();
  const showToast = useAppStore((state) => state.showToast);
  const form = usePlatformForm({
    path: `/application/${encodeURIComponent(applicationId)}/platform/web_push`,
    initial: draftOf(platform.settings),
    bodyOf,
    input: WebPushSettings,
    answer: WebPushPlatform as z.ZodType<WebPushPlatform>,
    draftOf: (saved) => draftOf(saved.settings),
    onSaved,
  });
  const { draft, set, problem } = form;
  const workerLine = workerFileLine(window.location.origin);

  async function copy(text: string) {
    const copied = await copyText(text);
    showToast(copied ? t('common.copied') : t('common.unknownError'), { error: !copied });
  }

  const positions = SUBSCRIPTION_BOX_POSITIONS.map((value) => ({ value, label: t(`webPush.positions.${value}`) }));

  return (
    <PlatformCard
      title={t('webPush.title')}
      about={t('webPush.about')}
      state={webPushState(platform)}
      updatedAt={platform.updated_at}
      form={form}
      onSave={() => void form.save()}
    >
      <FormLayout>
        <Checkbox label={t('webPush.enabled')} checked={draft.enabled} onChange={set('enabled')} helpText={t('webPush.enabledHelp')} />
        <TextField
          label={t('webPush.siteUrl')}
          value={draft.site_url}
          onChange={set('site_url')}
          autoComplete="url"
          type="url"
          placeholder="https://shop.example.vn"
          error={problem('site_url')}
          helpText={t('webPush.httpsOnly')}
        />
        <TextField
          label={t('webPush.iconUrl')}
          value={draft.icon_url}
          onChange={set('icon_url')}
          autoComplete="off"
          type="url"
          placeholder="https://shop.example.vn/icon-192.png"
          error={problem('icon_url')}
          helpText={t('webPush.iconHelp')}
        />
        <TextField
          label={t('webPush.swPath')}
          value={draft.sw_path}
          onChange={set('sw_path')}
          autoComplete="off"
          error={problem('sw_path')}
          helpText={t('webPush.swPathHelp')}
        />
        <BlockStack gap="200">
          <Text as="p" variant="bodyMd">
            {t('webPush.workerFile', { path: draft.sw_path || DEFAULT_SW_PATH })}
          </Text>
          <Box padding="200" background="bg-surface-secondary" borderRadius="200">
            <Text as="p" variant="bodySm" breakWord>
              <code>{workerLine}</code>
            </Text>
          </Box>
          <InlineStack>
            <Button onClick={() => void copy(workerLine)}>{t('webPush.copyWorkerFile')}</Button>
          </InlineStack>
        </BlockStack>
      </FormLayout>

      <BlockStack gap="300">
        <Text as="h3" variant="headingSm">
          {t('webPush.box')}
        </Text>
        <InlineGrid columns={{ xs: 1, md: 2 }} gap="400">
          <FormLayout>
            <TextField label={t('webPush.boxText')} value={draft.text} onChange={set('text')} autoComplete="off" multiline={2} error={problem('box.text')} />
            <FormLayout.Group>
              <TextField label={t('webPush.allowText')} value={draft.allow_text} onChange={set('allow_text')} autoComplete="off" error={problem('box.allow_text')} />
              <TextField label={t('webPush.denyText')} value={draft.deny_text} onChange={set('deny_text')} autoComplete="off" error={problem('box.deny_text')} />
            </FormLayout.Group>
            <FormLayout.Group>
              <TextField
                label={t('webPush.delay')}
                type="number"
                min={0}
                max={600}
                value={draft.delay_seconds}
                onChange={set('delay_seconds')}
                autoComplete="off"
                suffix={t('webPush.seconds')}
                error={problem('box.delay_seconds')}
              />
              <Select label={t('webPush.position')} options={positions} value={draft.position} onChange={(value) => set('position')(value as SubscriptionBoxPosition)} />
            </FormLayout.Group>
          </FormLayout>
          <BoxPreview draft={draft} />
        </InlineGrid>
      </BlockStack>

      <BlockStack gap="200">
        <Text as="h3" variant="headingSm">
          {t('webPush.vapidKey')}
        </Text>
        <Text as="p" tone="subdued">
          {t('webPush.vapidHelp')}
        </Text>
        <Box padding="200" background="bg-surface-secondary" borderRadius="200">
          <Text as="p" variant="bodySm" breakWord>
            <code data-testid="vapid-key">{platform.vapid_public_key}</code>
          </Text>
        </Box>
        <InlineStack>
          <Button onClick={() => void copy(platform.vapid_public_key)}>{t('webPush.copyKey')}</Button>
        </InlineStack>
      </BlockStack>
    </PlatformCard>
  );
}
