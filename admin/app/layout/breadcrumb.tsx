import { useTranslation } from 'react-i18next';
import { RouterLink } from '../../components/router-link';

export interface BreadcrumbProps {
  /** The application of the page, if any, with its name. */
  application?: { id: string; name: string };
  /** i18n key of the page's title; the list page has none beyond "Applications". */
  title?: string;
  /** The page's own name (text, not a key), shown instead of its title. */
  label?: string;
}

/** Applications › application name › page title. */
export function Breadcrumb({ application, title, label }: BreadcrumbProps) {
  const { t } = useTranslation();
  const items: { label: string; url?: string }[] = [{ label: t('menu.applications'), url: '/application' }];
  if (application) items.push({ label: application.name });
  if (label) items.push({ label });
  else if (title && title !== 'menu.applications') items.push({ label: t(title) });
  const last = items.length - 1;
  // On the list itself the trail would only repeat the page's heading.
  if (items.length < 2) return null;
  return (
    <nav className="nudge-breadcrumb" aria-label={t('layout.breadcrumb')}>
      <ol>
        {items.map((item, index) => (
          <li key={`${index}-${item.label}`}>
            {item.url && index !== last ? (
              <RouterLink url={item.url}>{item.label}</RouterLink>
            ) : (
              <span aria-current={index === last ? 'page' : undefined}>{item.label}</span>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}
