import { useEffect, useState } from 'react';
import { ServerInfo } from '../../shared/contract';
import { api } from '../api';

/** Where the REST API documentation lives (spec §2 "restful API"), until the server says otherwise. */
export const API_DOCS_URL = '/api/docs';

/** The links the menus show: the guide only when the server has one configured. */
export interface ConsoleLinks {
  guideUrl: string | null;
  apiDocsUrl: string;
}

let loading: Promise<ConsoleLinks> | null = null;

function loadLinks(): Promise<ConsoleLinks> {
  // Once per page: the server's settings do not change while the console runs.
  loading ??= api
    .get('/info', ServerInfo, { quiet: true })
    .then(({ data }) => ({ guideUrl: data.guide_url || null, apiDocsUrl: data.api_docs_url || API_DOCS_URL }))
    .catch(() => ({ guideUrl: null, apiDocsUrl: API_DOCS_URL }));
  return loading;
}

/** The guide and API docs links (GET /api/info); no guide link until (and unless) the server names one. */
export function useConsoleLinks(): ConsoleLinks {
  const [links, setLinks] = useState<ConsoleLinks>({ guideUrl: null, apiDocsUrl: API_DOCS_URL });
  useEffect(() => {
    let live = true;
    void loadLinks().then((value) => live && setLinks(value));
    return () => {
      live = false;
    };
  }, []);
  return links;
}
