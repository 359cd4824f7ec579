import { Banner } from '@shopify/polaris';
import { type ReactNode, createContext, useContext, useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'wouter';
import { Application } from '../../shared/contract';
import { DEFAULT_PLAN, type Plan } from '../../shared/permissions/plans';
import { useApiQuery } from '../api/use-api-query';
import { useAppStore } from '../stores/store';

/** The application a per-application page works on. */
export interface CurrentApplication {
  applicationId: string;
  /** Undefined while it loads, or when it could not be loaded. */
  application: Application | undefined;
  reload(): void;
}

const CurrentApplicationContext = createContext<CurrentApplication | null>(null);

/** The application of the page; only inside the /application/:application_id routes. */
export function useCurrentApplication(): CurrentApplication {
  const value = useContext(CurrentApplicationContext);
  if (!value) throw new Error('useCurrentApplication is used outside an application route');
  return value;
}

/**
 * The plan of the page's application, whose caps the forms show ahead of a save. While the application loads
 * it is the default plan; the server checks the real one either way (PLAN_LIMIT).
 */
export function useApplicationPlan(): Plan {
  return useCurrentApplication().application?.plan ?? DEFAULT_PLAN;
}

/** Loads the application of /application/:application_id for the pages under it and the top bar. */
export function ApplicationScope({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { application_id: applicationId = '' } = useParams<{ application_id: string }>();
  const query = useApiQuery(`/application/${encodeURIComponent(applicationId)}`, Application);
  const setAppName = useAppStore((state) => state.setAppName);
  const application = query.data?.application_id === applicationId ? query.data : undefined;

  useEffect(() => {
    if (application) setAppName({ id: application.application_id, name: application.name });
  }, [application, setAppName]);

  const value = useMemo<CurrentApplication>(
    () => ({ applicationId, application, reload: query.reload }),
    [applicationId, application, query.reload],
  );

  return (
    <CurrentApplicationContext.Provider value={value}>
      {application?.deleting_at ? (
        <div className="nudge-notice">
          <Banner tone="warning" title={t('errors.APPLICATION_DELETING')} />
        </div>
      ) : null}
      {children}
    </CurrentApplicationContext.Provider>
  );
}
