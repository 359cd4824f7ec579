/**
 * The picture of the empty states: a bell over a card, drawn here so the console loads nothing from a
 * third-party CDN (Polaris' own illustrations live on Shopify's).
 */
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="226" height="226" viewBox="0 0 226 226">
<circle cx="113" cy="113" r="100" fill="#eef3fb"/>
<rect x="48" y="118" width="130" height="62" rx="10" fill="#fff" stroke="#c9d6ea" stroke-width="2"/>
<rect x="62" y="134" width="64" height="8" rx="4" fill="#c9d6ea"/>
<rect x="62" y="152" width="96" height="8" rx="4" fill="#e1e8f3"/>
<path d="M113 46a30 30 0 0 0-30 30v15l-8 15h76l-8-15V76a30 30 0 0 0-30-30Z" fill="#2c6ecb"/>
<path d="M101 110a12 12 0 0 0 24 0Z" fill="#5c2ec5"/>
<circle cx="140" cy="58" r="9" fill="#f49342" stroke="#fff" stroke-width="3"/>
</svg>`;

export const EMPTY_ILLUSTRATION = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;

/** The picture of a "not found": a magnifying glass over an empty card, in the same colours. */
const notFound = `<svg xmlns="http://www.w3.org/2000/svg" width="226" height="226" viewBox="0 0 226 226">
<circle cx="113" cy="113" r="100" fill="#eef3fb"/>
<rect x="40" y="70" width="120" height="92" rx="10" fill="#fff" stroke="#c9d6ea" stroke-width="2"/>
<rect x="54" y="86" width="56" height="8" rx="4" fill="#e1e8f3"/>
<rect x="54" y="104" width="80" height="8" rx="4" fill="#e1e8f3"/>
<rect x="54" y="122" width="40" height="8" rx="4" fill="#e1e8f3"/>
<path d="m160 150 26 26" stroke="#5c2ec5" stroke-width="12" stroke-linecap="round"/>
<circle cx="140" cy="130" r="28" fill="#fff" stroke="#2c6ecb" stroke-width="8"/>
<path d="M133 123a7 7 0 1 1 9 7c-2 1-2 2-2 4" fill="none" stroke="#2c6ecb" stroke-width="4" stroke-linecap="round"/>
<circle cx="140" cy="142" r="2.5" fill="#2c6ecb"/>
</svg>`;

export const NOT_FOUND_ILLUSTRATION = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(notFound)}`;
