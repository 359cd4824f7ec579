import { BlockStack, Layout, Page } from '@shopify/polaris';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { PlatformList, WebPushPlatform, type PlatformEntry } from '../../../shared/contract';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { QueryState } from '../../components/query-state';
import { ApiKeysCard } from './api-keys-card';
import { AndroidCard, FacebookCard, IosCard, SmsCard } from './provider-cards';
import { WebPushCard } from './web-push-card';

type Saved = Partial<{ [K in PlatformEntry['kind']]: Extract<PlatformEntry, { kind: K }> }>;

/**
 * /platform (spec §2 "Settings (platforms)", §3 "Platform setting"): web push, iOS, Android, SMS and the Facebook
 * page, each with its state and form, then the REST API keys.
 */
export function PlatformPage() {
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const base = `/application/${encodeURIComponent(applicationId)}/platform`;
  const web = useApiQuery(`${base}/web_push`, WebPushPlatform as z.ZodType<WebPushPlatform>, undefined, { showsFailure: true });
  const list = useApiQuery(base, PlatformList as z.ZodType<PlatformList>, undefined, { showsFailure: true });
  const [savedWeb, setSavedWeb] = useState<WebPushPlatform | null>(null);
  const [saved, setSaved] = useState<Saved>({});
  useEffect(() => {
    setSavedWeb(null);
    setSaved({});
  }, [applicationId]);

  /** The platform of a kind: as last saved here, else as loaded. */
  function entryOf<K extends PlatformEntry['kind']>(kind: K): Extract<PlatformEntry, { kind: K }> {
    return (saved[kind] ?? list.data!.find((entry) => entry.kind === kind)) as Extract<PlatformEntry, { kind: K }>;
  }
  const keep = (entry: PlatformEntry) => setSaved((current) => ({ ...current, [entry.kind]: entry }));
  const cardProps = { applicationId, onSaved: keep };

  return (
    <Page title={t('platform.title')} subtitle={t('platform.subtitle')}>
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">
            <QueryState query={web} lines={10}>
              {() => <WebPushCard key={applicationId} applicationId={applicationId} platform={savedWeb ?? web.data!} onSaved={setSavedWeb} />}
            </QueryState>
            <QueryState query={list} lines={10}>
              {() => (
                <>
                  <IosCard key={`ios:${applicationId}`} {...cardProps} entry={entryOf('ios')} />
                  <AndroidCard key={`android:${applicationId}`} {...cardProps} entry={entryOf('android')} />
                  <SmsCard key={`sms:${applicationId}`} {...cardProps} entry={entryOf('sms')} />
                  <FacebookCard key={`facebook:${applicationId}`} {...cardProps} entry={entryOf('facebook')} />
                </>
              )}
            </QueryState>
            <ApiKeysCard key={applicationId} applicationId={applicationId} />
          </BlockStack>
        </Layout.Section>
      </Layout>
    </Page>
  );
}
