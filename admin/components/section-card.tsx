import { BlockStack, Card, Text } from '@shopify/polaris';
import type { ReactNode } from 'react';

export interface SectionCardProps {
  /** The card's heading. */
  title: string;
  /** A subdued line under the heading, when the section needs one. */
  help?: string;
  /** Space between the heading and what follows: 400 for a form's fields, 300 for a screen's figures. */
  gap?: '300' | '400';
  children: ReactNode;
}

/** One card of a screen: its heading, an optional help line, then its content (fields, figures, a chart). */
export function SectionCard({ title, help, gap = '400', children }: SectionCardProps) {
  const heading = (
    <Text as="h2" variant="headingMd">
      {title}
    </Text>
  );
  return (
    <Card>
      <BlockStack gap={gap}>
        {help === undefined ? (
          heading
        ) : (
          <BlockStack gap="100">
            {heading}
            <Text as="p" tone="subdued">
              {help}
            </Text>
          </BlockStack>
        )}
        {children}
      </BlockStack>
    </Card>
  );
}
