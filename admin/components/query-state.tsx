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

/**
 * The pagination of a list's IndexTable: previous/next within `pages`, "page x of y", nothing when one page
 * holds everything.
 */
export function tablePagination(
  t: (key: string, params?: Record<string, string | number>) => string,
  pageNumber: number,
  total: number,
  pageSize: number,
  setPageNumber: (update: (n: number) => number) => void,
) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (total <= pageSize) return undefined;
  return {
    hasPrevious: pageNumber > 1,
    hasNext: pageNumber < pages,
    onPrevious: () => setPageNumber((n) => Math.max(1, n - 1)),
    onNext: () => setPageNumber((n) => Math.min(pages, n + 1)),
    label: t('common.pageOf', { page: pageNumber, pages }),
    accessibilityLabels: { previous: t('common.previousPage'), next: t('common.nextPage') },
  };
}
