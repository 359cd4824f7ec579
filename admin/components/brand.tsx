import { useTranslation } from 'react-i18next';
import { RouterLink } from './router-link';

/** The bell of the Nudge mark. */
export function BrandMark() {
  return (
    <span className="nudge-brand-mark" aria-hidden="true">
      <svg width="16" height="16" viewBox="0 0 20 20" fill="currentColor">
        <path d="M10 2a5.5 5.5 0 0 0-5.5 5.5v2.7L3.2 12.8A1 1 0 0 0 4.1 14.3h11.8a1 1 0 0 0 .9-1.5l-1.3-2.6V7.5A5.5 5.5 0 0 0 10 2Zm-2.4 13.5a2.5 2.5 0 0 0 4.8 0H7.6Z" />
      </svg>
    </span>
  );
}

/** The product's name with its mark; a link home when `href` is given. */
export function Brand({ href }: { href?: string }) {
  const { t } = useTranslation();
  const content = (
    <>
      <BrandMark />
      <span>{t('common.appName')}</span>
    </>
  );
  return href ? (
    <RouterLink className="nudge-brand" url={href}>
      {content}
    </RouterLink>
  ) : (
    <div className="nudge-brand">{content}</div>
  );
}
