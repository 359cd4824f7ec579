import type { LinkLikeComponentProps } from '@shopify/polaris/build/ts/src/utilities/link';
import { forwardRef } from 'react';
import { useLocation } from 'wouter';

function isInternal(url: string): boolean {
  return url.startsWith('/') && !url.startsWith('//') && !url.startsWith('/api/');
}

/**
 * The link Polaris renders (Navigation items, Button url, ActionList url): console paths go through the
 * router, everything else (the API docs, a guide on another site) is a plain link.
 */
export const RouterLink = forwardRef<HTMLAnchorElement, LinkLikeComponentProps>(function RouterLink(
  { url, external, children, onClick, target, ...rest },
  ref,
) {
  const [, navigate] = useLocation();
  const opensElsewhere = external || target === '_blank' || !isInternal(url);
  return (
    <a
      {...rest}
      ref={ref}
      href={url}
      target={external ? '_blank' : target}
      rel={external ? 'noopener noreferrer' : rest.rel}
      onClick={(event) => {
        onClick?.(event);
        if (event.defaultPrevented || opensElsewhere) return;
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        // `~` makes the path absolute from inside a nested (per-application) router.
        navigate(`~${url}`);
      }}
    >
      {children}
    </a>
  );
});
