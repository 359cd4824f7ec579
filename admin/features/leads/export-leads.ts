import { ErrorEnvelope } from '../../../shared/contract';
import { API_BASE_URL, API_TIMEOUT_MS, type Query } from '../../api/client';
import { ApiError } from '../../api/api-error';

export interface DownloadDeps {
  /** The session's token, sent as X-Token so it never sits in a URL. */
  token: string | null;
  /** Headers that authenticate in place of the token (the embedded admin's session token), as the API client sends them. */
  authorization?: Record<string, string> | null;
  language: string;
  /** The page's URL: a link that carries its own access_token uses it, as the API client does. */
  pageUrl: string;
  fetch?: typeof fetch;
  /** Hands the file to the browser (a test captures it instead). */
  save?(file: Blob, name: string): void;
  /** Translated texts of the client's own failures. */
  unknownError: string;
}

function saveFile(file: Blob, name: string) {
  const url = URL.createObjectURL(file);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.style.display = 'none';
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The click has started the download; the URL can go once the browser has read it.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The file name the server proposes in Content-Disposition, or the fallback. */
export function fileNameOf(disposition: string | null, fallback: string): string {
  const match = disposition ? /filename="?([^";]+)"?/i.exec(disposition) : null;
  return match ? match[1] : fallback;
}

/**
 * Downloads GET /api/application/{id}/lead/export.csv with the report's filters. It goes through fetch with
 * the X-Token header (not a link with the token in it), then hands the file to the browser; a failure comes
 * back as the server's translated message.
 */
export async function downloadLeadsCsv(applicationId: string, filters: Query, deps: DownloadDeps): Promise<string> {
  const url = new URL(`${API_BASE_URL}/application/${encodeURIComponent(applicationId)}/lead/export.csv`, deps.pageUrl);
  for (const [key, value] of Object.entries(filters)) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(key, String(value));
  }
  const headers: Record<string, string> = { Accept: 'text/csv, application/json', 'Accept-Language': deps.language };
  let linkToken: string | null = null;
  try {
    linkToken = new URL(deps.pageUrl).searchParams.get('access_token');
  } catch {
    linkToken = null;
  }
  if (deps.authorization) Object.assign(headers, deps.authorization);
  else if (linkToken) url.searchParams.set('access_token', linkToken);
  else if (deps.token) headers['X-Token'] = deps.token;

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), API_TIMEOUT_MS);
  try {
    const response = await (deps.fetch ?? globalThis.fetch)(url.toString(), { headers, signal: controller.signal });
    const type = response.headers.get('content-type') ?? '';
    if (!response.ok || type.includes('application/json')) {
      const payload: unknown = await response.json().catch(() => undefined);
      const envelope = ErrorEnvelope.safeParse(payload);
      if (envelope.success) throw new ApiError(envelope.data.error, envelope.data.message, response.status);
      throw new ApiError('HTTP', deps.unknownError, response.status);
    }
    const file = await response.blob();
    const name = fileNameOf(response.headers.get('content-disposition'), `leads-${applicationId}.csv`);
    (deps.save ?? saveFile)(file, name);
    return name;
  } catch (cause) {
    if (cause instanceof ApiError) throw cause;
    throw new ApiError('NETWORK', deps.unknownError);
  } finally {
    clearTimeout(timer);
  }
}
