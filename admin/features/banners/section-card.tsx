import { BlockStack, Card, Text } from '@shopify/polaris';
import type { ReactNode } from 'react';

export interface SectionCardProps {
  /** The card's heading. */
  title: string;
  /** A subdued line under the heading, when the section needs one. */
  help?: string;
  children: ReactNode;
}

/** One section of a widget editor: a card with its heading, an optional help line, then its fields. */
export function SectionCard({ title, help, children }: SectionCardProps) {
  const heading = (
    <Text as="h2" variant="headingMd">
      {title}
    </Text>
  );
  return (
    <Card>
      <BlockStack gap="400">
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
