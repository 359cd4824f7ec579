import { BlockStack, Card, InlineStack, ProgressBar, Text } from '@shopify/polaris';
import type { ReactNode } from 'react';
import { useFormatNumber, useAbbreviateNumber } from '../../app/i18n';
import { SectionCard } from '../../components/section-card';

/** One figure of the dashboard: its label, the number (whole in the tooltip) and a line under it. */
export function Metric({ label, value, detail }: { label: string; value: number; detail?: string }) {
  const abbreviate = useAbbreviateNumber();
  const number = useFormatNumber();
  return (
    <Card>
      <BlockStack gap="100">
        <Text as="h3" variant="bodyMd" tone="subdued">
          {label}
        </Text>
        <span title={number(value)}>
          <Text as="p" variant="heading2xl">
            {abbreviate(value)}
          </Text>
        </span>
        {detail ? (
          <Text as="p" variant="bodySm" tone="subdued">
            {detail}
          </Text>
        ) : null}
      </BlockStack>
    </Card>
  );
}

/** A titled card of "name — count" lines with a bar for each share of the largest. */
export function Shares({ title, rows, empty }: { title: string; rows: { key: string; label: ReactNode; value: number; detail?: string }[]; empty: string }) {
  const abbreviate = useAbbreviateNumber();
  const largest = Math.max(1, ...rows.map((row) => row.value));
  return (
    <SectionCard gap="300" title={title}>
      {rows.length === 0 ? (
        <Text as="p" tone="subdued">
          {empty}
        </Text>
      ) : (
        <ul style={{ listStyle: 'none', margin: 0, padding: 0, display: 'grid', gap: 12 }}>
          {rows.map((row) => (
            <li key={row.key}>
              <BlockStack gap="100">
                <InlineStack align="space-between" gap="200" wrap={false}>
                  <Text as="span">{row.label}</Text>
                  <Text as="span" numeric fontWeight="semibold">
                    {abbreviate(row.value)}
                    {row.detail ? (
                      <Text as="span" tone="subdued" fontWeight="regular">
                        {` · ${row.detail}`}
                      </Text>
                    ) : null}
                  </Text>
                </InlineStack>
                <ProgressBar progress={Math.round((row.value / largest) * 100)} size="small" tone="primary" />
              </BlockStack>
            </li>
          ))}
        </ul>
      )}
    </SectionCard>
  );
}
