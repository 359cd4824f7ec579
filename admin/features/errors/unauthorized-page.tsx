import { ErrorPage } from './error-page';

/** /401: the user's roles do not allow the page (spec §2). */
export function UnauthorizedPage() {
  return <ErrorPage code="401" title="errorPages.unauthorizedTitle" body="errorPages.unauthorizedBody" />;
}
