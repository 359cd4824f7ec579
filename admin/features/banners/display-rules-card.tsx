import {
  BlockStack,
  Button,
  Checkbox,
  FormLayout,
  InlineError,
  InlineGrid,
  InlineStack,
  Select,
  Text,
  TextField,
} from '@shopify/polaris';
import { DeleteIcon, PlusIcon } from '@shopify/polaris-icons';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { type DisplayRules, FREQUENCIES, type PageRule } from '../../../shared/contract';
import { DateTimeField, NumberField, useErrorOf } from './form-fields';
import type { PathErrors } from './widget-drafts';
import { SectionCard } from '../../components/section-card';

/** The contract's cap on page rules. */
const MAX_PAGE_RULES = 20;
const MATCHES: PageRule['match'][] = ['contains', 'equals', 'excludes'];
const SCROLLS: DisplayRules['scroll'][] = ['none', '25', '50', '75', '100'];
const DEVICES = ['desktop', 'mobile'] as const;

export interface DisplayRulesCardProps {
  rules: DisplayRules;
  onChange(rules: DisplayRules): void;
  /** Problems under `rules.` (paths relative to it). */
  errors: PathErrors;
  disabled?: boolean;
}

/**
 * Where, when and how often a widget shows (issue 3's display rules): pages, devices, delay, scroll depth,
 * exit intent, frequency and a start/end window.
 */
export function DisplayRulesCard({ rules, onChange, errors, disabled }: DisplayRulesCardProps) {
  const { t } = useTranslation();
  const errorOf = useErrorOf(errors);
  const devicesId = useId();
  const set = <K extends keyof DisplayRules>(key: K, value: DisplayRules[K]) => onChange({ ...rules, [key]: value });

  function setPage(index: number, page: PageRule) {
    set('pages', rules.pages.map((current, i) => (i === index ? page : current)));
  }

  function toggleDevice(device: (typeof DEVICES)[number], on: boolean) {
    const next = on ? [...rules.devices, device] : rules.devices.filter((d) => d !== device);
    // Keep the contract's order so an unchanged choice never looks changed.
    set('devices', DEVICES.filter((d) => next.includes(d)));
  }

  return (
    <SectionCard title={t('widgets.rules.title')} help={t('widgets.rules.subtitle')}>

      <BlockStack gap="200">
        <Text as="h3" variant="headingSm">
          {t('widgets.rules.pages')}
        </Text>
        {rules.pages.length === 0 ? (
          <Text as="p" tone="subdued">
            {t('widgets.rules.allPages')}
          </Text>
        ) : null}
        {rules.pages.map((page, index) => (
          <InlineStack key={index} gap="200" blockAlign="start" wrap={false}>
            <div style={{ flex: '0 0 34%' }}>
              <Select
                label={t('widgets.rules.pageMatch', { number: index + 1 })}
                labelHidden
                options={MATCHES.map((match) => ({ value: match, label: t(`widgets.rules.match.${match}`) }))}
                value={page.match}
                disabled={disabled}
                onChange={(match) => setPage(index, { ...page, match: match as PageRule['match'] })}
              />
            </div>
            <div style={{ flex: '1 1 auto', minWidth: 0 }}>
              <TextField
                label={t('widgets.rules.pageValue', { number: index + 1 })}
                labelHidden
                value={page.value}
                placeholder={t('widgets.rules.pagePlaceholder')}
                autoComplete="off"
                disabled={disabled}
                error={errorOf(`pages.${index}.value`)}
                onChange={(value) => setPage(index, { ...page, value })}
              />
            </div>
            <Button
              icon={DeleteIcon}
              variant="tertiary"
              disabled={disabled}
              accessibilityLabel={t('widgets.rules.removePage', { number: index + 1 })}
              onClick={() => set('pages', rules.pages.filter((_, i) => i !== index))}
            />
          </InlineStack>
        ))}
        <InlineStack>
          <Button
            icon={PlusIcon}
            disabled={disabled || rules.pages.length >= MAX_PAGE_RULES}
            onClick={() => set('pages', [...rules.pages, { match: 'contains', value: '' }])}
          >
            {t('widgets.rules.addPage')}
          </Button>
        </InlineStack>
      </BlockStack>

      <FormLayout>
        <fieldset style={{ border: 0, margin: 0, padding: 0 }} aria-describedby={errorOf('devices') ? devicesId : undefined}>
          <legend>
            <Text as="span" variant="bodyMd">
              {t('widgets.rules.devices')}
            </Text>
          </legend>
          <InlineStack gap="400">
            {DEVICES.map((device) => (
              <Checkbox
                key={device}
                label={t(`widgets.devices.${device}`)}
                checked={rules.devices.includes(device)}
                disabled={disabled}
                onChange={(on) => toggleDevice(device, on)}
              />
            ))}
          </InlineStack>
          {errorOf('devices') ? <InlineError message={errorOf('devices') ?? ''} fieldID={devicesId} /> : null}
        </fieldset>
        <InlineGrid columns={{ xs: 1, sm: 2 }} gap="400">
          <NumberField
            label={t('widgets.rules.delay')}
            value={rules.delay_seconds}
            min={0}
            max={3600}
            suffix={t('widgets.units.seconds')}
            disabled={disabled}
            error={errorOf('delay_seconds')}
            onChange={(value) => set('delay_seconds', value ?? Number.NaN)}
          />
          <Select
            label={t('widgets.rules.scroll')}
            options={SCROLLS.map((scroll) => ({ value: scroll, label: t(`widgets.rules.scrollAt.${scroll === 'none' ? 'none' : `p${scroll}`}`) }))}
            value={rules.scroll}
            disabled={disabled}
            onChange={(value) => set('scroll', value as DisplayRules['scroll'])}
          />
        </InlineGrid>
        <Checkbox
          label={t('widgets.rules.exitIntent')}
          helpText={t('widgets.rules.exitIntentHelp')}
          checked={rules.exit_intent}
          disabled={disabled}
          onChange={(on) => set('exit_intent', on)}
        />
        <Select
          label={t('widgets.rules.frequency')}
          options={FREQUENCIES.map((frequency) => ({ value: frequency, label: t(`widgets.rules.frequencies.${frequency}`) }))}
          value={rules.frequency}
          disabled={disabled}
          onChange={(value) => set('frequency', value as DisplayRules['frequency'])}
        />
        <InlineGrid columns={{ xs: 1, sm: 2 }} gap="400">
          <DateTimeField
            label={t('widgets.rules.startAt')}
            helpText={t('widgets.rules.startAtHelp')}
            value={rules.start_at}
            disabled={disabled}
            error={errorOf('start_at')}
            onChange={(value) => set('start_at', value)}
          />
          <DateTimeField
            label={t('widgets.rules.endAt')}
            helpText={t('widgets.rules.endAtHelp')}
            value={rules.end_at}
            disabled={disabled}
            error={errorOf('end_at')}
            onChange={(value) => set('end_at', value)}
          />
        </InlineGrid>
      </FormLayout>
    </SectionCard>
  );
}

/** The editor's own check of the rules beyond the contract: a window that ends before it starts shows nothing, ever. */
export function rulesProblems(rules: DisplayRules): PathErrors {
  if (rules.start_at && rules.end_at && Date.parse(rules.end_at) <= Date.parse(rules.start_at)) {
    return { 'rules.end_at': 'widgets.rules.endBeforeStart' };
  }
  return {};
}
