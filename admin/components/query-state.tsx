import { BlockStack, Box, Button, SkeletonBodyText, Text } from '@shopify/polaris';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiQuery } from '../api/use-api-query';

export interface QueryStateProps {
  /** The list's query: its first load shows a skeleton, its failure a message with Retry. */
  query: Pick<ApiQuery<unknown>, 'data' | 'error' | 'loading' | 'reload'>;
  /** Lines of the skeleton, about the rows a page shows at first. */
  lines?: number;
  /** The list itself, once there is data (later reloads keep it on screen). */
  children: () => ReactNode;
}

/** The loading and failure states every list of the console shows in place of its table. */
export function QueryState({ query, lines = 5, children }: QueryStateProps) {
  const { t } = useTranslation();
  if (query.error && !query.data) {
    return (
      <Box padding="600">
        <BlockStack gap="300" inlineAlign="center">
          <Text as="p" tone="critical">
            {query.error.message}
          </Text>
          <Button onClick={query.reload}>{t('common.retry')}</Button>
        </BlockStack>
      </Box>
    );
  }
  if (query.loading && !query.data) {
    return (
      <Box padding="400">
        <SkeletonBodyText lines={lines} />
      </Box>
    );
  }
  return <>{children()}</>;
}
