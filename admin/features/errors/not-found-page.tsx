import { ErrorPage } from './error-page';

/** /404: unknown paths and screens that do not exist yet. */
export function NotFoundPage() {
  return <ErrorPage code="404" title="errorPages.notFoundTitle" body="errorPages.notFoundBody" />;
}
