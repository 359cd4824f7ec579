import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { authorizeApiWith } from '../../admin/api';
import { EmbedApp } from './embed-app';
import { readEmbedContext } from './entry';
import { sessionTokenAuthorization } from './session-token';

const context = readEmbedContext(window);
// Before anything renders: the first call (GET /api/embed/session) already carries the session token.
if (context.kind === 'embedded') authorizeApiWith(sessionTokenAuthorization(context.bridge));

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
createRoot(container).render(
  <StrictMode>
    <EmbedApp context={context} />
  </StrictMode>,
);
