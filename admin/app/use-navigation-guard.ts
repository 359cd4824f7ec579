import { useEffect, useMemo, useRef } from 'react';
import { useLocation, useSearch } from 'wouter';
import { useShallow } from 'zustand/react/shallow';
import { ApplicationAccess } from '../../shared/contract';
import { api, isApiError } from '../api';
import { useAppStore } from '../stores/store';
import { type GuardDecision, decideNavigation, loginRedirect } from './guard';
import { i18n } from './i18n';

/** GET /application/{application_id}/access; an answer without roles counts as a refusal (spec §8). */
async function loadAccess(applicationId: string): Promise<ApplicationAccess> {
  const { data } = await api.get(`/application/${encodeURIComponent(applicationId)}/access`, ApplicationAccess, {
    quiet: true,
  });
  if (data.roles.length === 0) throw new Error('no roles');
  return data;
}

/** Runs the guard on every navigation and carries out its decision; the page renders on 'allow'. */
export function useNavigationGuard(): GuardDecision {
  const [path, navigate] = useLocation();
  const search = useSearch();
  const { token, roles, lastApplicationId } = useAppStore(
    useShallow((state) => ({ token: state.token, roles: state.roles, lastApplicationId: state.lastApplicationId })),
  );
  const decision = useMemo(
    () => decideNavigation({ path, search, loggedIn: Boolean(token), roles, lastApplicationId }),
    [path, search, token, roles, lastApplicationId],
  );
  const loadingFor = useRef<string | null>(null);

  useEffect(() => {
    const store = useAppStore.getState();
    if (decision.kind === 'redirect') {
      navigate(decision.to, { replace: decision.replace });
    } else if (decision.kind === 'assume-admin') {
      store.assumeDefaultRole();
    } else if (decision.kind === 'load-access' && loadingFor.current !== decision.applicationId) {
      const { applicationId } = decision;
      loadingFor.current = applicationId;
      loadAccess(applicationId)
        .then((access) => {
          // The menu is built from these roles, agency and permissions, so it rebuilds with them.
          useAppStore.getState().setAccess(applicationId, access);
        })
        .catch((cause: unknown) => {
          // An expired session is the client's to handle: message, then sign-out and reload.
          if (isApiError(cause) && cause.code === 'NOT_AUTHORIZED') return;
          const state = useAppStore.getState();
          state.showToast(i18n.t('errors.verificationFailed'), { error: true });
          state.signOut();
          navigate(loginRedirect(path, search), { replace: true });
        })
        .finally(() => {
          loadingFor.current = null;
        });
    }
  }, [decision, navigate, path, search]);

  return decision;
}
