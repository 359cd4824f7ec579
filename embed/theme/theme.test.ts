import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
const liquid = read('./blocks/nudge.liquid');

interface Setting {
  type: string;
  id: string;
  label: string;
  info?: string;
}
interface Schema {
  name: string;
  target: string;
  enabled_on?: { templates?: string[] };
  settings: Setting[];
}

function schemaOf(source: string): Schema {
  const match = /{%-?\s*schema\s*-?%}([\s\S]*?){%-?\s*endschema\s*-?%}/.exec(source);
  if (!match) throw new Error('no {% schema %} in the block');
  return JSON.parse(match[1]) as Schema;
}

const escapeHtml = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/**
 * Renders the block as the theme would for these settings, with just the Liquid the block uses: comments,
 * the schema (which outputs nothing), `{% if block.settings.x != blank and … %}` and
 * `{{ block.settings.x }}` with an optional `| escape`. Anything else left over fails the test.
 */
function render(source: string, settings: Record<string, string>): string {
  const value = (id: string) => settings[id] ?? '';
  const out = source
    .replace(/{%-?\s*comment\s*-?%}[\s\S]*?{%-?\s*endcomment\s*-?%}/g, '')
    .replace(/{%-?\s*schema\s*-?%}[\s\S]*?{%-?\s*endschema\s*-?%}/g, '')
    .replace(/{%-?\s*if\s+(.+?)\s*-?%}([\s\S]*?){%-?\s*endif\s*-?%}/g, (_whole, condition: string, body: string) => {
      const holds = condition.split(/\s+and\s+/).every((part) => {
        const test = /^block\.settings\.(\w+)\s*!=\s*blank$/.exec(part.trim());
        if (!test) throw new Error(`the test renderer does not know the condition "${part}"`);
        return value(test[1]).trim() !== '';
      });
      return holds ? body : '';
    })
    .replace(/{{-?\s*block\.settings\.(\w+)\s*(\|\s*escape\s*)?-?}}/g, (_whole, id: string, escape?: string) =>
      escape ? escapeHtml(value(id)) : value(id),
    );
  if (/{%|{{/.test(out)) throw new Error(`Liquid the test renderer does not know is left: ${out}`);
  return out.trim();
}

function scriptTag(html: string): { src: string; app: string; async: boolean } | null {
  const match = /^<script(\s+async)?\s+src="([^"]*)"\s+data-app="([^"]*)"><\/script>$/.exec(html);
  return match ? { async: Boolean(match[1]), src: match[2], app: match[3] } : null;
}

describe('the theme app extension', () => {
  it('is of the theme type and has a name', () => {
    const toml = read('./shopify.extension.toml');
    expect(toml).toMatch(/^type\s*=\s*"theme"\s*$/m);
    expect(toml).toMatch(/^name\s*=\s*"[^"]+"\s*$/m);
  });
});

describe('the Nudge app embed block', () => {
  const schema = schemaOf(liquid);

  it('is an app embed: it targets the body, on every template', () => {
    expect(schema.target).toBe('body');
    expect(schema.enabled_on?.templates).toEqual(['*']);
  });

  it('has a text setting for the client key and one for the Nudge server address', () => {
    const byId = Object.fromEntries(schema.settings.map((setting) => [setting.id, setting]));
    expect(byId.client_key?.type).toBe('text');
    expect(byId.server_url?.type).toBe('text');
    expect(schema.settings).toHaveLength(2);
  });

  it('names every label it translates in both the English and the Vietnamese schema locale', () => {
    const keys = [schema.name, ...schema.settings.flatMap((setting) => [setting.label, setting.info ?? ''])]
      .filter((text) => text.startsWith('t:'))
      .map((text) => text.slice(2));
    expect(keys.length).toBeGreaterThan(0);
    for (const file of ['./locales/en.default.schema.json', './locales/vi.schema.json']) {
      const locale = JSON.parse(read(file)) as Record<string, unknown>;
      const lookup = (key: string) => key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], locale);
      expect(keys.filter((key) => typeof lookup(key) !== 'string' || String(lookup(key)).trim() === ''), file).toEqual([]);
    }
  });

  it("renders the storefront loader's tag from the Nudge server with the shop's client key", () => {
    const html = render(liquid, { client_key: 'ck_demo_123', server_url: 'https://nudge.example.com' });
    expect(scriptTag(html)).toEqual({ async: true, src: 'https://nudge.example.com/sdk/nudge.js', app: 'ck_demo_123' });
  });

  it('renders nothing until both the key and the server are set', () => {
    expect(render(liquid, { client_key: 'ck_demo_123', server_url: '' })).toBe('');
    expect(render(liquid, { client_key: ' ', server_url: 'https://nudge.example.com' })).toBe('');
  });

  it('escapes what the merchant typed, so a setting cannot break out of the tag', () => {
    const html = render(liquid, { client_key: '"><img src=x onerror=alert(1)>', server_url: 'https://nudge.example.com' });
    expect(scriptTag(html)?.app).toBe('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
  });
});
