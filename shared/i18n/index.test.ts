import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../contract/common';
import { ACCOUNT_ROUTES, APPLICATION_ROUTES, ROLE_LABEL_KEYS } from '../permissions';
import { V } from '../validation';
import en from './en.json';
import vi from './vi.json';
import {
  DEFAULT_LANGUAGE,
  EMBEDDED_DEFAULT_LANGUAGE,
  LANGUAGES,
  isLanguage,
  leafKeys,
  pickLanguage,
  resources,
  translate,
} from './index';

const enKeys = leafKeys(en);
const viKeys = leafKeys(vi);
const known = new Set(enKeys.filter((key) => viKeys.includes(key)));

function valueAt(tree: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], tree);
}

/**
 * Texts that show a message's personal-value syntax ({{first_name | bạn}}) as the merchant types it: literal
 * double braces, which neither translate() nor the console's i18next reads as a placeholder.
 */
const LITERAL_DOUBLE_BRACES = new Set<string>([V.personalTag, 'notificationUi.content.personal.help']);

function placeholders(text: string): string[] {
  return [...text.replace(/\{\{[^{}]*\}\}/g, '').matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
}

describe('the dictionaries', () => {
  it('give vi every key of en', () => {
    expect(enKeys.filter((key) => !viKeys.includes(key)), 'keys in en.json missing from vi.json').toEqual([]);
  });

  it('give en every key of vi', () => {
    expect(viKeys.filter((key) => !enKeys.includes(key)), 'keys in vi.json missing from en.json').toEqual([]);
  });

  it('hold only text at their leaves', () => {
    const notText = (tree: unknown, keys: string[]) => keys.filter((key) => typeof valueAt(tree, key) !== 'string');
    expect(notText(en, enKeys), 'en.json').toEqual([]);
    expect(notText(vi, viKeys), 'vi.json').toEqual([]);
  });

  it('have no empty text', () => {
    const empty = (tree: unknown, keys: string[]) => keys.filter((key) => String(valueAt(tree, key)).trim() === '');
    expect(empty(en, enKeys), 'en.json').toEqual([]);
    expect(empty(vi, viKeys), 'vi.json').toEqual([]);
  });

  it('use the same placeholders in both languages', () => {
    const differing = [...known]
      .filter((key) => placeholders(String(valueAt(en, key))).join() !== placeholders(String(valueAt(vi, key))).join())
      .map((key) => `${key}: en {${placeholders(String(valueAt(en, key)))}} vi {${placeholders(String(valueAt(vi, key)))}}`);
    expect(differing).toEqual([]);
  });

  it('write placeholders with single braces, as translate() reads them', () => {
    const doubled = (tree: unknown, keys: string[]) => keys.filter((key) => !LITERAL_DOUBLE_BRACES.has(key) && /\{\{|\}\}/.test(String(valueAt(tree, key))));
    expect([...doubled(en, enKeys), ...doubled(vi, viKeys)]).toEqual([]);
  });

  it('keep the personal-value syntax they show whole, in both translate() and the console', () => {
    expect(translate('vi', V.personalTag)).toContain('{{tên_thuộc_tính | mặc định}}');
    expect(translate('en', 'notificationUi.content.personal.help')).toMatch(/^\{\{first_name \| there\}\} /);
  });

  it('name keys without dots or spaces inside a segment', () => {
    const odd = [...enKeys, ...viKeys].filter((key) => key.split('.').some((part) => !/^[A-Za-z0-9_]+$/.test(part)));
    expect(odd).toEqual([]);
  });
});

describe('translate', () => {
  it('reads a key in the language asked for', () => {
    expect(translate('en', 'common.save')).toBe('Save');
    expect(translate('vi', 'common.save')).toBe('Lưu');
  });

  it('substitutes {name} placeholders with text and numbers', () => {
    expect(translate('en', 'mail.greeting', { name: 'Ann' })).toBe('Hello Ann,');
    expect(translate('vi', 'mail.greeting', { name: 'Lan' })).toBe('Xin chào Lan,');
    expect(translate('en', 'time.minutesAgo', { count: 5 })).toBe('5 minutes ago');
  });

  it('leaves a placeholder whose parameter is missing as it is', () => {
    expect(translate('en', 'mail.greeting')).toBe('Hello {name},');
  });

  it('does not substitute inside a substituted value, so text a user typed stays as typed', () => {
    expect(translate('en', 'mail.inviteSubject', { application: '{application}' })).toBe(
      'You have been invited to {application} on Nudge',
    );
    expect(translate('en', 'mail.greeting', { name: '$& $1' })).toBe('Hello $& $1,');
  });

  it('answers with the key itself when no language has it', () => {
    expect(translate('vi', 'common.noSuchKey')).toBe('common.noSuchKey');
    expect(translate('en', 'nowhere')).toBe('nowhere');
  });

  it('answers with the key itself for a branch of the tree or an inherited property name', () => {
    expect(translate('en', 'common')).toBe('common');
    expect(translate('en', 'common.constructor')).toBe('common.constructor');
    expect(translate('en', 'common.toString')).toBe('common.toString');
    expect(translate('en', '__proto__.constructor')).toBe('__proto__.constructor');
  });

  it('falls back to English when Vietnamese lacks a key', () => {
    const enCommon = resources.en.common as Record<string, string>;
    enCommon.onlyInEnglish = 'Only in English, {who}';
    try {
      expect(translate('vi', 'common.onlyInEnglish', { who: 'Ann' })).toBe('Only in English, Ann');
    } finally {
      delete enCommon.onlyInEnglish;
    }
  });
});

describe('languages', () => {
  it('are Vietnamese by default and English inside the shop platform’s frame (spec §1)', () => {
    expect(LANGUAGES).toEqual(['vi', 'en']);
    expect(DEFAULT_LANGUAGE).toBe('vi');
    expect(EMBEDDED_DEFAULT_LANGUAGE).toBe('en');
  });

  it('recognises only vi and en', () => {
    expect(isLanguage('vi')).toBe(true);
    expect(isLanguage('en')).toBe(true);
    expect(isLanguage('EN')).toBe(false);
    expect(isLanguage('fr')).toBe(false);
    expect(isLanguage(undefined)).toBe(false);
  });
});

describe('pickLanguage', () => {
  it('uses the fallback when there is no header', () => {
    expect(pickLanguage(undefined)).toBe('vi');
    expect(pickLanguage(null)).toBe('vi');
    expect(pickLanguage('')).toBe('vi');
    expect(pickLanguage(undefined, 'en')).toBe('en');
  });

  it('takes the first language of Accept-Language that the console speaks', () => {
    expect(pickLanguage('en-US,en;q=0.9')).toBe('en');
    expect(pickLanguage('vi-VN,vi;q=0.9,en;q=0.8')).toBe('vi');
    expect(pickLanguage('fr-FR, en;q=0.8, vi;q=0.5')).toBe('en');
    expect(pickLanguage('EN-gb')).toBe('en');
  });

  it('uses the fallback when it speaks none of them', () => {
    expect(pickLanguage('fr-FR, de;q=0.5')).toBe('vi');
    expect(pickLanguage('*', 'en')).toBe('en');
  });
});

describe('leafKeys', () => {
  it('lists every leaf, dotted', () => {
    expect(leafKeys({ a: { b: 'x', c: { d: 'y' } }, e: 'z' })).toEqual(['a.b', 'a.c.d', 'e']);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Every key the code uses exists in both dictionaries.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCANNED_FOLDERS = ['admin', 'server', 'shared', 'embed', 'storefront-widgets'];
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'fixtures', '__fixtures__']);
const SOURCE_FILE = /\.(ts|tsx|js|jsx|mjs|cjs)$/;
// Tests are not scanned: they look keys up on purpose that do not exist (fallback checks), and every key a
// screen shows is already used by the screen's own code.
const TEST_FILE = /\.test\.(ts|tsx|js|jsx|mjs)$/;

function sourceFiles(folder: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return []; // a folder nobody has created yet
  }
  return entries.flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return SKIPPED_FOLDERS.has(name) ? [] : sourceFiles(path);
    return SOURCE_FILE.test(name) && !TEST_FILE.test(name) ? [path] : [];
  });
}

/** Only dotted keys whose first segment is a namespace of the dictionaries count, so 'a.b' or 'x.ts' never do. */
const namespaces = new Set([...Object.keys(en), ...Object.keys(vi)]);
const KEY = String.raw`(?<key>[A-Za-z_]\w*(?:\.\w+)+)`;
// The key must be the whole literal: the quote that opens it closes it.
const Q = String.raw`(?<q>['"\x60])`;
const END = String.raw`\k<q>`;
const KEY_USES: RegExp[] = [
  // t('a.b'), i18n.t('a.b'), deps.t("a.b")
  new RegExp(String.raw`(?<![\w$])(?:[\w$]+\.)*t\(\s*${Q}${KEY}${END}`, 'g'),
  // translate(lang, 'a.b')
  new RegExp(String.raw`(?<![\w$])translate\(\s*[^,()]+,\s*${Q}${KEY}${END}`, 'g'),
  // new AppError('CONFLICT', 'errors.emailTaken'): an error code, then the key of its message
  new RegExp(String.raw`\(\s*(?<c>['"])[A-Z][A-Z_]+\k<c>\s*,\s*${Q}${KEY}${END}`, 'g'),
  // <Trans i18nKey="a.b" />, labelKey="a.b", titleKey={'a.b'}
  new RegExp(String.raw`\b(?:i18nKey|\w+Key)=\{?\s*${Q}${KEY}${END}`, 'g'),
  // { message: 'a.b' } in zod schemas and answers, { title: 'a.b' }, { labelKey: 'a.b' }
  new RegExp(String.raw`\b(?:message|title|label|\w+Key)\s*:\s*${Q}${KEY}${END}`, 'g'),
];

/**
 * A file may wrap translate in a helper that adds a namespace (`const t = (key) => translate(lang, \`mail.${key}\`)`);
 * then its calls (`t('verifySubject')`) name keys under that namespace.
 */
const PREFIXED_HELPER = new RegExp(
  String.raw`(?:const|let)\s+(?<fn>[\w$]+)\s*=\s*\([^)]*\)[^=]*=>\s*translate\(\s*[^,()]+,\s*\x60(?<prefix>[A-Za-z_]\w*(?:\.\w+)*)\.\$\{`,
  'g',
);

function prefixedUses(text: string): Array<{ key: string; index: number }> {
  const found: Array<{ key: string; index: number }> = [];
  for (const helper of text.matchAll(PREFIXED_HELPER)) {
    const { fn, prefix } = helper.groups ?? {};
    const call = new RegExp(String.raw`(?<![\w$.])${fn.replace(/\$/g, '\\$')}\(\s*${Q}(?<name>\w+(?:\.\w+)*)${END}`, 'g');
    for (const match of text.matchAll(call)) found.push({ key: `${prefix}.${match.groups?.name}`, index: match.index });
  }
  return found;
}

interface KeyUse {
  key: string;
  where: string;
}

function keyUsesIn(file: string): KeyUse[] {
  const text = readFileSync(file, 'utf8');
  const uses: KeyUse[] = [];
  for (const pattern of KEY_USES) {
    for (const match of text.matchAll(pattern)) {
      const key = match.groups?.key ?? '';
      if (!namespaces.has(key.split('.')[0])) continue;
      const line = text.slice(0, match.index).split('\n').length;
      uses.push({ key, where: `${relative(ROOT, file)}:${line}` });
    }
  }
  for (const { key, index } of prefixedUses(text)) {
    uses.push({ key, where: `${relative(ROOT, file)}:${text.slice(0, index).split('\n').length}` });
  }
  return uses;
}

function missingFrom(uses: KeyUse[]): string[] {
  const report: string[] = [];
  for (const { key, where } of uses) {
    const lacks = [!enKeys.includes(key) && 'en.json', !viKeys.includes(key) && 'vi.json'].filter(Boolean);
    if (lacks.length > 0) report.push(`${key} (${where}) missing from ${lacks.join(' and ')}`);
  }
  return [...new Set(report)].sort();
}

describe('the keys the code uses', () => {
  const files = SCANNED_FOLDERS.flatMap((folder) => sourceFiles(join(ROOT, folder)));
  const uses = files.flatMap(keyUsesIn);

  it('are found by the scan (so an empty scan cannot pass silently)', () => {
    expect(files.some((file) => file.endsWith(join('shared', 'format', 'index.ts')))).toBe(true);
    expect(uses.map((use) => use.key)).toContain('time.justNow');
  });

  it('all exist in en.json and vi.json', () => {
    expect(missingFrom(uses)).toEqual([]);
  });

  it('include every validation message key', () => {
    expect(missingFrom(Object.values(V).map((key) => ({ key, where: 'shared/validation V' })))).toEqual([]);
  });

  it('include every route title', () => {
    const titles = [...APPLICATION_ROUTES, ...ACCOUNT_ROUTES].map((route) => ({
      key: route.title,
      where: `shared/permissions route ${route.path}`,
    }));
    expect(missingFrom(titles)).toEqual([]);
  });

  it('include every role label', () => {
    const labels = Object.entries(ROLE_LABEL_KEYS).map(([role, key]) => ({ key, where: `ROLE_LABEL_KEYS.${role}` }));
    expect(missingFrom(labels)).toEqual([]);
  });

  it('include errors.<CODE> for every error code of the API envelope', () => {
    const codes = ErrorCode.options.map((code) => ({ key: `errors.${code}`, where: 'shared/contract ErrorCode' }));
    expect(missingFrom(codes)).toEqual([]);
  });

  it('include every weekday name of formatDate', () => {
    const days = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((day) => ({
      key: `time.weekdays.${day}`,
      where: 'shared/format weekdayName',
    }));
    expect(missingFrom(days)).toEqual([]);
  });
});

describe('the key scan', () => {
  const scan = (text: string) => {
    const uses: string[] = [];
    for (const pattern of KEY_USES) {
      for (const match of text.matchAll(pattern)) {
        const key = match.groups?.key ?? '';
        if (namespaces.has(key.split('.')[0])) uses.push(key);
      }
    }
    return uses.sort();
  };

  it('finds keys in calls, props and schema messages', () => {
    expect(scan(`t('common.save'); i18n.t("menu.dashboard", { x: 1 }); translate(lang, 'errors.NOT_FOUND')`)).toEqual(
      ['common.save', 'errors.NOT_FOUND', 'menu.dashboard'],
    );
    expect(scan(`<Trans i18nKey="roles.viewer" /> <X labelKey={'common.close'} />`)).toEqual(['common.close', 'roles.viewer']);
    expect(scan(`z.string().refine(f, { message: 'validation.email' }); const r = { title: 'menu.test' }`)).toEqual([
      'menu.test',
      'validation.email',
    ]);
    expect(scan(`throw new AppError('CONFLICT', 'errors.emailTaken')`)).toEqual(['errors.emailTaken']);
  });

  it('finds keys behind a helper that adds a namespace', () => {
    const file = [
      'const t = (key: string, params: Record<string, string | number> = {}) => translate(lang, `mail.${key}`, params);',
      "const subject = t('verifySubject');",
      "const body = t('loginOtpBody', { code });",
      "const other = format('notAKey');",
    ].join('\n');
    expect(prefixedUses(file).map((use) => use.key)).toEqual(['mail.verifySubject', 'mail.loginOtpBody']);
  });

  it('ignores strings that are not keys of a known namespace', () => {
    expect(
      scan(
        `t('a.b'); t('Hello there.'); format('common.save'); import x from './common.ts'; ` +
          `{ message: 'Invalid email or password.' }; t(\`errors.\${code}\`); t('common.' + name); t('common'); ` +
          `t('common.save"); new AppError('CONFLICT', 'Already there.'); fail('x', 'common.save')`,
      ),
    ).toEqual([]);
  });
});
