import type { PublicWidget } from '../shared/contract/widget';
import { previewMounter, stayOnPage, type PreviewOptions } from './preview';

/**
 * dist/sdk/preview.js: the page script of the console's preview frame (admin/components/widget-preview),
 * an isolated frame with an opaque origin over a sample shop. It says `{ source: 'nudge-preview', ready:
 * true }` to the console, then shows each `{ source, widget, lang, device }` the console posts, with the
 * real widget code, as a shop's page would (the frame is the page: its size is the device's).
 */
const SOURCE = 'nudge-preview';

interface PreviewMessage extends PreviewOptions {
  source: typeof SOURCE;
  widget: PublicWidget;
}

const isPreviewMessage = (data: unknown): data is PreviewMessage => {
  const message = data as Partial<PreviewMessage> | null;
  return !!message && message.source === SOURCE && !!message.widget && typeof message.widget.type === 'string';
};

const preview = previewMounter(document.body);
document.addEventListener('click', stayOnPage, true);

addEventListener('message', (event: MessageEvent) => {
  // Only the console that holds the frame speaks to it.
  if (event.source !== parent || !isPreviewMessage(event.data)) return;
  const { widget, lang, device } = event.data;
  preview.update(widget, { lang, device });
});

// The frame's origin is opaque, so the console's can't be named; the message says nothing private.
parent.postMessage({ source: SOURCE, ready: true }, '*');
