/**
 * Label and field selectors of list and watch requests: labels.Parse (the one label selector
 * parser is @landscape/apimachinery's) with kube-apiserver's 400, and fields.ParseSelector
 * (`f=v`, `f==v`, `f!=v`, `\,` escapes) with the resource's supported field labels.
 */
import { parseSelector, SelectorParseError, type LabelRequirement } from '@landscape/apimachinery';
import { badRequest } from './errors.js';

/**
 * labels.Parse of a `labelSelector` query value (one parser: @landscape/apimachinery); a syntax
 * error is a 400 with labels.Parse's message. An empty string selects everything.
 */
export function parseLabelSelector(text: string | undefined | null): LabelRequirement[] {
  try {
    return parseSelector(text);
  } catch (err) {
    if (err instanceof SelectorParseError) throw badRequest(err.message);
    throw err;
  }
}

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

function unescapeFieldValue(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

/** Splits on a separator that is not escaped with a backslash. */
function splitUnescaped(text: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && i + 1 < text.length) {
      cur += text[i] + text[i + 1];
      i++;
    } else if (text[i] === sep) {
      out.push(cur);
      cur = '';
    } else cur += text[i];
  }
  out.push(cur);
  return out;
}

/** Parses a `fieldSelector`; `supported` lists the field labels the resource allows. */
/**
 * Parses a `fieldSelector`; `supported` lists the field labels the resource allows. Kinds with
 * their own field label conversion (Pod, Node, Event, ...) word a refusal the legacy way.
 */
export function parseFieldSelector(
  text: string | undefined | null,
  supported: readonly string[],
  legacyWording = false,
): FieldRequirement[] {
  if (!text || !text.trim()) return [];
  return splitUnescaped(text, ',').map((part) => {
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(part.trim());
    if (!m) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    const field = m[1].trim();
    if (!supported.includes(field)) {
      const known = supported.map((s) => JSON.stringify(s)).join(', ');
      throw badRequest(
        legacyWording
          ? `field label not supported: ${field}`
          : `"${field}" is not a known field selector: only ${known}`,
      );
    }
    return { field, op: m[2] === '!=' ? '!=' : '=', value: unescapeFieldValue(m[3]) };
  });
}

export function matchesFields(reqs: FieldRequirement[], fields: Record<string, string>): boolean {
  return reqs.every((r) => ((fields[r.field] ?? '') === r.value) === (r.op === '='));
}
