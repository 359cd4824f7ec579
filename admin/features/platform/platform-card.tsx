import { Badge, BlockStack, Box, Button, Card, Checkbox, InlineStack, Text, TextField } from '@shopify/polaris';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { PLATFORM_FILE_MAX_LENGTH, type PlatformState } from '../../../shared/contract';
import { formatDate } from '../../../shared/format';
import { api, isApiError } from '../../api';
import { useAppStore } from '../../stores/store';
import { type FormSubmitState } from '../../components/form-modal';
import { FailureBanner } from '../../components/failure-banner';
import { useLanguage } from '../../app/i18n';
import { useUnsavedForm } from '../../app/leave-guard';

/** Problems by field, by full dotted path (`site_url`, `box.text`, `auth.p8`): i18n keys or translated texts. */
export type Problems = Partial<Record<string, string>>;

/** The first problem of each field, by its full path. */
export function problemsOf(issues: readonly { path: readonly PropertyKey[]; message: string }[]): Problems {
  const problems: Problems = {};
  for (const issue of issues) {
    const path = issue.path.map(String).join('.');
    problems[path] ??= issue.message;
  }
  return problems;
}

const STATE_TONES: Record<PlatformState, 'success' | 'attention' | undefined> = {
  active: 'success',
  inactive: 'attention',
  not_configured: undefined,
};

export interface PlatformFormOptions<D, E> {
  /** The API path the PUT goes to. */
  path: string;
  /** The form's values from what the server holds. */
  initial: D;
  /** The request body of the form's values (secrets left out unless replaced). */
  bodyOf(draft: D): unknown;
  /** The contract's input schema: the same checks the server makes, before anything is sent. */
  input: z.ZodTypeAny;
  /** The contract's answer schema. */
  answer: z.ZodType<E>;
  /** The form's values from a saved platform: the form starts again from them. */
  draftOf(entry: E): D;
  /** Called with the saved platform. */
  onSaved(entry: E): void;
}

/**
 * A platform form's state and its save: checked with the contract first, then PUT; field problems show beside
 * their fields, any other refusal (such as the Facebook page check) in a banner over the form.
 */
export function usePlatformForm<D, E>({ path, initial, bodyOf, input, answer, draftOf, onSaved }: PlatformFormOptions<D, E>) {
  const { t } = useTranslation();
  const showToast = useAppStore((state) => state.showToast);
  const [draft, setDraft] = useState<D>(initial);
  // The values as the server holds them: leaving the page with others asks first.
  const { markSaved } = useUnsavedForm(draft);
  const [problems, setProblems] = useState<Problems>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const set =
    <K extends keyof D>(key: K) =>
    (value: D[K]) =>
      setDraft((current) => ({ ...current, [key]: value }));
  const problem = (field: string) => (problems[field] ? t(problems[field]!) : undefined);

  async function save() {
    const parsed = input.safeParse(bodyOf(draft));
    setFailure(null);
    if (!parsed.success) {
      setProblems(problemsOf(parsed.error.issues));
      return;
    }
    setProblems({});
    setSaving(true);
    try {
      const result = await api.put(path, parsed.data, answer, { quiet: true });
      const saved = draftOf(result.data);
      setDraft(saved);
      markSaved(saved);
      onSaved(result.data);
      showToast(t('common.success'));
    } catch (cause) {
      if (isApiError(cause) && cause.fields.length > 0) setProblems(problemsOf(cause.fields.map((f) => ({ path: f.path.split('.'), message: f.message }))));
      else setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
    } finally {
      setSaving(false);
    }
  }

  return { draft, set, problem, save, saving, failure, dismissFailure: () => setFailure(null) };
}

export interface PlatformCardProps {
  title: string;
  about: string;
  state: PlatformState;
  /** When the platform was last saved. */
  updatedAt: string | null;
  /** Busy while saving, and a refusal that belongs to no field, shown over the form. */
  form: FormSubmitState;
  onSave(): void;
  /** The active/inactive switch (spec §3 "Platform status"), for the platforms that have one. */
  active?: { checked: boolean; onChange(checked: boolean): void };
  children: ReactNode;
}

/** The frame every platform card shares: title, state badge, about, the form, and its save button. */
export function PlatformCard({ title, about, state, updatedAt, form, onSave, active, children }: PlatformCardProps) {
  const { failure } = form;
  const { t } = useTranslation();
  const lang = useLanguage();
  const banner = useRef<HTMLDivElement>(null);
  // The save button is at the bottom of a long card: bring the refusal into sight.
  useEffect(() => {
    if (failure) banner.current?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  }, [failure]);
  return (
    <section aria-label={title}>
      <Card>
        <BlockStack gap="400">
          <BlockStack gap="100">
            <InlineStack align="space-between" blockAlign="center" gap="200">
              <Text as="h2" variant="headingMd">
                {title}
              </Text>
              <Badge tone={STATE_TONES[state]}>{t(`platform.states.${state}`)}</Badge>
            </InlineStack>
            <Text as="p" tone="subdued">
              {about}
            </Text>
            {updatedAt ? (
              <Text as="p" variant="bodySm" tone="subdued">
                {t('platform.lastSaved', { date: formatDate(updatedAt, '{y}-{m}-{d} {h}:{i}', { lang }) })}
              </Text>
            ) : null}
          </BlockStack>
          {failure ? (
            <div ref={banner}>
              <FailureBanner message={failure} onDismiss={form.dismissFailure} />
            </div>
          ) : null}
          {active ? (
            <Checkbox label={t('platform.statusActive')} checked={active.checked} onChange={active.onChange} helpText={t('platform.statusHelp')} />
          ) : null}
          {children}
          <InlineStack align="end">
            <Button variant="primary" loading={form.saving} onClick={onSave}>
              {t('common.save')}
            </Button>
          </InlineStack>
        </BlockStack>
      </Card>
    </section>
  );
}

export interface SecretFieldProps {
  label: string;
  helpText?: string;
  /** The stored secret as the server masks it; null when nothing is stored yet. */
  masked: string | null;
  /** null keeps the stored secret; text replaces it. */
  value: string | null;
  onChange(value: string | null): void;
  error?: string;
  /** A key file's text (PEM, JSON): a multi-line field with a file picker taking these extensions. */
  file?: { accept: string };
}

/**
 * A secret of a platform: masked with a Replace action while one is stored, else a field to type, paste or
 * (for key files) load from a file. The file is read in the browser and sent as text.
 */
export function SecretField({ label, helpText, masked, value, onChange, error, file }: SecretFieldProps) {
  const { t } = useTranslation();
  const picker = useRef<HTMLInputElement>(null);
  const [fileProblem, setFileProblem] = useState<string | null>(null);

  if (value === null && masked !== null) {
    return (
      <TextField
        label={label}
        value={masked}
        readOnly
        autoComplete="off"
        helpText={t('platform.secret.stored')}
        error={error}
        connectedRight={<Button onClick={() => onChange('')}>{t('platform.secret.replace')}</Button>}
      />
    );
  }

  async function load(chosen: File | undefined) {
    if (!chosen) return;
    setFileProblem(null);
    if (chosen.size > PLATFORM_FILE_MAX_LENGTH) {
      setFileProblem(t('platform.secret.fileTooLarge'));
      return;
    }
    try {
      onChange(await chosen.text());
    } catch {
      setFileProblem(t('platform.secret.fileUnreadable'));
    }
  }

  return (
    <BlockStack gap="200">
      <TextField
        label={label}
        value={value ?? ''}
        onChange={(next) => onChange(next)}
        autoComplete="off"
        type={file ? 'text' : 'password'}
        multiline={file ? 4 : undefined}
        monospaced={Boolean(file)}
        helpText={helpText}
        error={fileProblem ?? error}
      />
      {file || masked !== null ? (
        <InlineStack gap="200">
          {file ? (
            <Box>
              <input
                ref={picker}
                type="file"
                accept={file.accept}
                aria-label={`${label}: ${t('platform.secret.chooseFile')}`}
                style={{ display: 'none' }}
                onChange={(event) => {
                  void load(event.currentTarget.files?.[0]);
                  event.currentTarget.value = '';
                }}
              />
              <Button onClick={() => picker.current?.click()}>{t('platform.secret.chooseFile')}</Button>
            </Box>
          ) : null}
          {masked !== null ? (
            <Button variant="plain" onClick={() => onChange(null)}>
              {t('platform.secret.keep')}
            </Button>
          ) : null}
        </InlineStack>
      ) : null}
    </BlockStack>
  );
}
