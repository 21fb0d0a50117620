import { isWellFormedText } from '../../lib/input-guard';

/**
 * `{{identifier}}`, `{{trackingId}}` and `{{<account key>}}` placeholders, each value encoded
 * for where it lands, so a subject identifier can never change the shape of a call:
 * URL-encoded in URLs (never a whole "." or ".." segment), refused in headers if it holds a line
 * break or a character outside ASCII, JSON-escaped in bodies.
 */
export type TemplateValues = Record<string, string | undefined>;

/** A placeholder as the calls are rendered with it (and as a saved configuration is checked against). */
export const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g;

export class TemplateError extends Error {}

function lookup(values: TemplateValues, name: string): string {
  const value = values[name];
  if (value === undefined) throw new TemplateError(`Unknown placeholder {{${name}}}`);
  return value;
}

export function renderUrl(template: string, values: TemplateValues): string {
  const rendered = template.replace(PLACEHOLDER, (_m, name: string) => {
    const value = lookup(values, name);
    // encodeURIComponent throws a URIError on an unpaired surrogate; say which placeholder instead.
    if (!isWellFormedText(value))
      throw new TemplateError(`{{${name}}} cannot be used in a URL: it contains an invalid character`);
    // A path segment "." or ".." is resolved away by every URL parser (even written %2E%2E):
    // /users/.. would become /, a call on another resource.
    if (value === '.' || value === '..')
      throw new TemplateError(`{{${name}}} cannot be used in a URL: "${value}" would change its path`);
    return encodeURIComponent(value);
  });
  const url = new URL(rendered);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TemplateError('Only http and https URLs are allowed');
  return url.toString();
}

export function renderHeader(template: string, values: TemplateValues): string {
  return template.replace(PLACEHOLDER, (_m, name: string) => {
    const value = lookup(values, name);
    if (/[\r\n\0]/.test(value))
      throw new TemplateError(`{{${name}}} cannot be used in a header: it contains a line break`);
    // Header values go out as single bytes (Latin-1): é would reach the destination as another
    // value, and a character beyond U+00FF cannot be sent at all.
    if (/[^\t\x20-\x7e]/.test(value))
      throw new TemplateError(
        `{{${name}}} cannot be used in a header: it has characters outside ASCII; put it in the URL or the body`,
      );
    return value;
  });
}

/** Placeholders must sit inside JSON strings; values are escaped as JSON string content. */
export function renderJsonBody(template: string, values: TemplateValues): string {
  const rendered = template.replace(PLACEHOLDER, (_m, name: string) =>
    JSON.stringify(lookup(values, name)).slice(1, -1),
  );
  try {
    JSON.parse(rendered);
  } catch {
    throw new TemplateError(
      'The body is not valid JSON after filling in its placeholders (placeholders belong inside "quotes")',
    );
  }
  return rendered;
}
