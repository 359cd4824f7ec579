import type { LinkLikeComponentProps } from '@shopify/polaris/build/ts/src/utilities/link';
import { forwardRef } from 'react';
import { useLocation, useRouter } from 'wouter';

function isInternal(url: string): boolean {
  return (url.startsWith('/') || url.startsWith('~/')) && !url.startsWith('//') && !url.startsWith('/api/');
}

/**
 * The link Polaris renders (Navigation items, Button url, ActionList url), in the hosted console and in the
 * embedded admin alike. Console paths resolve as wouter's own links do: against the router they are rendered
 * in, so a screen names its neighbours relative to its application (`/feature`, `/segment/3`) wherever the
 * console is mounted (/application/:id, or /shopify-banner/application/:id in the shop admin); `~/…` is
 * absolute. Anything else (the API docs, a guide on another site) is a plain link.
 */
export const RouterLink = forwardRef<HTMLAnchorElement, LinkLikeComponentProps>(function RouterLink(
  { url, external, children, onClick, target, ...rest },
  ref,
) {
  const { base } = useRouter();
  const [, navigate] = useLocation();
  const internal = isInternal(url);
  const opensElsewhere = external || target === '_blank' || !internal;
  const href = !internal ? url : url.startsWith('~') ? url.slice(1) : `${base}${url}`;
  return (
    <a
      {...rest}
      ref={ref}
      href={href}
      target={external ? '_blank' : target}
      rel={external ? 'noopener noreferrer' : rest.rel}
      onClick={(event) => {
        onClick?.(event);
        if (event.defaultPrevented || opensElsewhere) return;
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(url);
      }}
    >
      {children}
    </a>
  );
});
