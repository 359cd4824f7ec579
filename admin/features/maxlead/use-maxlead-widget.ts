import { Widget, page } from '../../../shared/contract';
import type { ApiError } from '../../api';
import { useApiQuery } from '../../api/use-api-query';

const WidgetPage = page(Widget);
const QUERY = { types: 'maxlead', page: 1, limit: 1 };

export interface MaxleadWidget {
  /** The application's contact-button widget; undefined when it has none yet (or while it loads). */
  widget: Widget | undefined;
  /** The answer came: `widget` undefined then means there is none. */
  loaded: boolean;
  error: ApiError | undefined;
  reload(): void;
}

/** The one contact-button widget of an application (/maxlead and /feature edit it; the newest if several). */
export function useMaxleadWidget(applicationId: string): MaxleadWidget {
  const query = useApiQuery(`/application/${encodeURIComponent(applicationId)}/widget`, WidgetPage, QUERY, { showsFailure: true });
  return { widget: query.data?.items[0], loaded: query.data !== undefined, error: query.error, reload: query.reload };
}
