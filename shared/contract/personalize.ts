import { NAME_MAX_LENGTH, NAME_PATTERN, isDateFieldName } from '../validation';

/*
 * Personal text in a message: `{{plan}}` is the recipient's `plan` attribute, `{{first_name | bạn}}` the same with
 * "bạn" where the player has none. Names are attribute names (NAME_PATTERN); the default may be empty. Only the
 * heading and the text are personal (every channel's wording); links, images and data are the same for everyone.
 */

/** `{{ name }}` or `{{ name | default }}`: no braces inside; a `|` separates the default. */
const PERSONAL_TAG = /\{\{([^{}|]*)(?:\|([^{}]*))?\}\}/g;

export interface PersonalTag {
  name: string;
  fallback: string;
}

/** The personal tags of a text, in order, or null when one is malformed (a bad name, `{{` without its `}}`). */
export function personalTags(text: string): PersonalTag[] | null {
  const tags = [...text.matchAll(PERSONAL_TAG)].map((match) => ({ name: match[1].trim(), fallback: (match[2] ?? '').trim() }));
  if (tags.some(({ name }) => !name || name.length > NAME_MAX_LENGTH || !NAME_PATTERN.test(name))) return null;
  // What is left holds no tag: a stray `{{` or `}}` is a tag typed wrong, which would reach players as it is.
  const rest = text.replace(PERSONAL_TAG, '');
  return rest.includes('{{') || rest.includes('}}') ? null : tags;
}

/** The attribute names a message's personal texts use (none when the texts are malformed: they are refused). */
export function personalNames(...texts: string[]): string[] {
  const names = new Set<string>();
  for (const text of texts) for (const tag of personalTags(text) ?? []) names.add(tag.name);
  return [...names];
}

/** An attribute's stored text as it reads in a message: a date (`.date` name, stored ISO) as its day. */
export function personalValue(name: string, stored: string): string {
  return isDateFieldName(name) && /^\d{4}-\d{2}-\d{2}T/.test(stored) ? stored.slice(0, 10) : stored;
}

/** The text for one player: each tag replaced by the player's value, else its default, else nothing. */
export function personalize(text: string, values: ReadonlyMap<string, string> | undefined): string {
  if (!text.includes('{{')) return text;
  return text.replace(PERSONAL_TAG, (_tag, name: string, fallback: string | undefined) => {
    const key = name.trim();
    const value = values?.get(key);
    return value !== undefined && value.trim() !== '' ? personalValue(key, value) : (fallback ?? '').trim();
  });
}
