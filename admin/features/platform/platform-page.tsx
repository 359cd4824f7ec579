import {
  Banner,
  BlockStack,
  Box,
  Button,
  Card,
  Checkbox,
  FormLayout,
  InlineGrid,
  InlineStack,
  Layout,
  Page,
  Select,
  Text,
  TextField,
} from '@shopify/polaris';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import {
  DEFAULT_SUBSCRIPTION_BOX,
  DEFAULT_SW_PATH,
  SUBSCRIPTION_BOX_POSITIONS,
  WebPushPlatform,
  WebPushSettings,
  type SubscriptionBoxPosition,
} from '../../../shared/contract';
import { isApiError, api } from '../../api';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { copyText } from '../../components/clipboard';
import { QueryState } from '../../components/query-state';
import { useAppStore } from '../../stores/store';

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

/** Problems by field: `site_url`, `box.text`… each an i18n key or a translated message. */
type Problems = Partial<Record<string, string>>;

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

/** The first problem of each field, by its full path (the box's fields are nested). */
function problemsOf(issues: readonly { path: readonly PropertyKey[]; message: string }[]): Problems {
  const problems: Problems = {};
  for (const issue of issues) {
    const path = issue.path.map(String).join('.');
    problems[path] ??= issue.message;
  }
  return problems;
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

/** The web push card: on/off, the shop's URLs, the service worker path and the subscription box. */
function WebPushCard({ applicationId, platform, onSaved }: { applicationId: string; platform: WebPushPlatform; onSaved(next: WebPushPlatform): void }) {
  const { t } = useTranslation();
  const showToast = useAppStore((state) => state.showToast);
  const [draft, setDraft] = useState<Draft>(() => draftOf(platform.settings));
  const [problems, setProblems] = useState<Problems>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const set = <K extends keyof Draft>(key: K) => (value: Draft[K]) => setDraft((current) => ({ ...current, [key]: value }));
  const problem = (path: string) => (problems[path] ? t(problems[path]!) : undefined);
  const workerLine = workerFileLine(window.location.origin);

  async function copy(text: string) {
    const copied = await copyText(text);
    showToast(copied ? t('common.copied') : t('common.unknownError'), { error: !copied });
  }

  async function save() {
    const parsed = WebPushSettings.safeParse(bodyOf(draft));
    if (!parsed.success) {
      setProblems(problemsOf(parsed.error.issues));
      return;
    }
    setProblems({});
    setFailure(null);
    setSaving(true);
    try {
      const result = await api.put(`/application/${applicationId}/platform/web_push`, parsed.data, WebPushPlatform as z.ZodType<WebPushPlatform>, { quiet: true });
      onSaved(result.data);
      showToast(t('common.success'));
    } catch (cause) {
      if (isApiError(cause) && cause.fields.length > 0) setProblems(problemsOf(cause.fields.map((f) => ({ path: f.path.split('.'), message: f.message }))));
      else setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
    } finally {
      setSaving(false);
    }
  }

  const positions = SUBSCRIPTION_BOX_POSITIONS.map((value) => ({ value, label: t(`webPush.positions.${value}`) }));

  return (
    <Card>
      <BlockStack gap="400">
        <BlockStack gap="100">
          <Text as="h2" variant="headingMd">
            {t('webPush.title')}
          </Text>
          <Text as="p" tone="subdued">
            {t('webPush.about')}
          </Text>
        </BlockStack>
        {failure && (
          <Banner tone="critical" onDismiss={() => setFailure(null)}>
            <p>{failure}</p>
          </Banner>
        )}
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

        <InlineStack align="end">
          <Button variant="primary" loading={saving} onClick={() => void save()}>
            {t('common.save')}
          </Button>
        </InlineStack>
      </BlockStack>
    </Card>
  );
}

/** /platform: the application's sending platforms. Issue 5 has web push; the other platforms come with issue 6. */
export function PlatformPage() {
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const query = useApiQuery(`/application/${applicationId}/platform/web_push`, WebPushPlatform as z.ZodType<WebPushPlatform>);
  const [saved, setSaved] = useState<WebPushPlatform | null>(null);
  useEffect(() => setSaved(null), [applicationId]);

  return (
    <Page title={t('platform.title')}>
      <Layout>
        <Layout.Section>
          <QueryState query={query} lines={10}>
            {() => <WebPushCard key={applicationId} applicationId={applicationId} platform={saved ?? query.data!} onSaved={setSaved} />}
          </QueryState>
        </Layout.Section>
      </Layout>
    </Page>
  );
}
