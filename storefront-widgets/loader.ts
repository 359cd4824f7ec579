import { boot } from './loader/boot';

/**
 * dist/sdk/nudge.js, the one script a shop adds:
 * `<script async src="https://HOST/sdk/nudge.js" data-app="CLIENT_KEY"></script>`.
 * A classic script without Preact: the build puts its release hash (the chunks' names) in place of `__NUDGE_RELEASE__`.
 */
declare const __NUDGE_RELEASE__: string;

boot(document.currentScript as HTMLScriptElement | null, __NUDGE_RELEASE__, (url) => import(url));
