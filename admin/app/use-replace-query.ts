import { useLocation } from 'wouter';

/**
 * Shows the current page again with another query (a list's filters, the dashboard's period), replacing the
 * history entry: `''` for none. Inside an application's nested routes its root page is `/`, which would become
 * `/application/:id/?…` with a trailing slash: a second address, and a second tab, for the same page. The root
 * keeps the address it is reached by.
 */
export function useReplaceQuery(): (query: string) => void {
  const [location, navigate] = useLocation();
  return (query) => navigate(`${location === '/' ? '' : location}${query ? `?${query}` : ''}`, { replace: true });
}
