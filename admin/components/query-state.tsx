import { Banner, BlockStack, Box, Button, Card, EmptyState, Layout, Page, SkeletonBodyText, SkeletonPage, Text, type PageProps } from '@shopify/polaris';
import { useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiError } from '../api/api-error';
import type { ApiQuery } from '../api/use-api-query';
import { NOT_FOUND_ILLUSTRATION } from './empty-illustration';

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
  if (query.error && !query.data) {
    return (
      <Box padding="600">
        <LoadFailed message={query.error.message} onRetry={query.reload} align="center" />
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

export interface LoadFailedProps {
  /** What went wrong, in the user's language (the API error's message, or the screen's own "not found"). */
  message: string;
  /** Tries the load again; without it (nothing to retry, as for an id that can't exist) no button shows. */
  onRetry?: () => void;
  /**
   * The record is not there (the server answered 404, or the address can't name one): said as such, leading back to
   * its list, since trying again would not bring it back.
   */
  notFound?: boolean;
  align?: 'start' | 'center';
}

/** A load that failed, within a list's card: its message and Retry. */
export function LoadFailed({ message, onRetry, align = 'start' }: LoadFailedProps) {
  const { t } = useTranslation();
  return (
    <BlockStack gap="300" inlineAlign={align}>
      <Text as="p" tone="critical">
        {message}
      </Text>
      {onRetry ? <Button onClick={onRetry}>{t('common.retry')}</Button> : null}
    </BlockStack>
  );
}

/**
 * The record id in an address (`/player/17`, `?id=17`): a positive whole number, or null when the address can't
 * name a record ("abc", "0", "create"). A screen shows its "not found" for null without asking the server, which
 * would refuse such an id as INVALID_PARAM, an error Retry cannot mend.
 */
export function recordId(value: string | null | undefined): number | null {
  if (!value || !/^\d{1,15}$/.test(value)) return null;
  const id = Number(value);
  return id > 0 ? id : null;
}

/**
 * What a screen says when its record could not load: its own "not found" when the server answered 404 or the
 * id in the address can't be one (no error then), with nothing to retry; otherwise the error and Retry.
 */
export function recordLoadFailure(error: ApiError | undefined, notFound: string, reload: () => void): LoadFailedProps {
  return !error || error.status === 404 ? { message: notFound, notFound: true } : { message: error.message, onRetry: reload };
}

export interface LoadFailedCardProps extends LoadFailedProps {
  /** The list the record belongs to (a page's back action): a "not found" offers it as the way on, "Back to Players". */
  list?: NonNullable<PageProps['backAction']> & { content: string };
}

/**
 * A part of a screen (a card's worth) that could not load. Not found: an empty state that says so and leads back
 * to the list. A failed load (the network, the server): a critical banner with the error and Retry.
 */
export function LoadFailedCard({ message, onRetry, notFound, list }: LoadFailedCardProps) {
  const { t } = useTranslation();
  if (notFound) {
    return (
      <Card>
        <EmptyState
          heading={t('common.notFoundTitle')}
          image={NOT_FOUND_ILLUSTRATION}
          action={list ? { content: t('common.backTo', { page: list.content }), ...('url' in list ? { url: list.url } : { onAction: list.onAction }) } : undefined}
        >
          <p>{message}</p>
          <p>{t('common.notFoundHelp')}</p>
        </EmptyState>
      </Card>
    );
  }
  return (
    <Banner tone="critical" title={t('common.loadFailed')} action={onRetry ? { content: t('common.retry'), onAction: onRetry } : undefined}>
      <p>{message}</p>
    </Banner>
  );
}

/**
 * A screen whose record could not load (deleted meanwhile, another application's id, the network): its page, and
 * in it the "not found" leading back to the list (the page's back action), or the failure with Retry.
 */
export function LoadFailedPage({ title, backAction, ...failure }: LoadFailedProps & { title: string; backAction?: LoadFailedCardProps['list'] }) {
  return (
    <Page title={title} backAction={backAction}>
      <LoadFailedCard {...failure} list={backAction} />
    </Page>
  );
}

export interface PageSkeletonProps {
  title?: string;
  backAction?: boolean;
  primaryAction?: boolean;
  /** Lines of the main card. */
  lines?: number;
  /** Lines of a narrow card beside it (an editor's preview, a record's summary); none without. */
  aside?: number;
}

/** A screen's first load: its page with a skeleton of the main card and, for two-column screens, the narrow one. */
export function PageSkeleton({ title, backAction, primaryAction, lines = 8, aside }: PageSkeletonProps) {
  const main = (
    <Card>
      <SkeletonBodyText lines={lines} />
    </Card>
  );
  return (
    <SkeletonPage title={title} backAction={backAction} primaryAction={primaryAction}>
      {aside === undefined ? (
        main
      ) : (
        <Layout>
          <Layout.Section>{main}</Layout.Section>
          <Layout.Section variant="oneThird">
            <Card>
              <SkeletonBodyText lines={aside} />
            </Card>
          </Layout.Section>
        </Layout>
      )}
    </SkeletonPage>
  );
}

/**
 * A list's pagination (tablePagination) that never stays past the list's end. When the page shown is past the
 * last one there is (its last row deleted, here or by someone else; an old link; `?page=99` typed in), the list
 * goes to its last page, instead of showing the empty state of a list that has rows, with no way back.
 * `total` is the list's size once loaded, undefined before.
 */
export function usePagination(
  t: (key: string, params?: Record<string, string | number>) => string,
  pageNumber: number,
  total: number | undefined,
  pageSize: number,
  setPageNumber: (update: (n: number) => number) => void,
  capped = false,
) {
  const pages = Math.max(1, Math.ceil((total ?? 0) / pageSize));
  const pastTheEnd = total !== undefined && pageNumber > pages;
  useEffect(() => {
    if (pastTheEnd) setPageNumber(() => pages);
    // setPageNumber may be a new function on every render (a URL's filters): only the numbers decide.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pastTheEnd, pages]);
  return tablePagination(t, pageNumber, total ?? 0, pageSize, setPageNumber, capped);
}

/**
 * The pagination of a list's IndexTable: previous/next within `pages`, "page x of y", nothing when one page
 * holds everything. `capped`: the server counted up to a cap and more match, so `total` and the page count are floors
 * ("page x of more than y"); the pages go no further than the cap.
 */
export function tablePagination(
  t: (key: string, params?: Record<string, string | number>) => string,
  pageNumber: number,
  total: number,
  pageSize: number,
  setPageNumber: (update: (n: number) => number) => void,
  capped = false,
) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (total <= pageSize) return undefined;
  return {
    hasPrevious: pageNumber > 1,
    hasNext: pageNumber < pages,
    onPrevious: () => setPageNumber((n) => Math.max(1, n - 1)),
    onNext: () => setPageNumber((n) => Math.min(pages, n + 1)),
    label: t(capped ? 'common.pageOfMore' : 'common.pageOf', { page: pageNumber, pages }),
    accessibilityLabels: { previous: t('common.previousPage'), next: t('common.nextPage') },
  };
}
