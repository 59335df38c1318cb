/**
 * The YAML that `access.yaml` is written in, and no more: block mappings and sequences indented by
 * two spaces, flow sequences of scalars (`[VIEWER, EDITOR]`), comments, and scalars that are plain
 * when that is unambiguous and double-quoted otherwise. The emitter is deterministic (the same
 * value always gives the same text); the parser reads what the emitter writes, and the hand edits
 * a person makes in the same style (single quotes, a sequence at its key's indentation), and names
 * the line of anything else. Written here rather than taking a YAML library as a dependency: the
 * shape is fixed and small, and a Pulumi program of the export reads it with no package besides
 * this one.
 */

/** A value the emitter writes and the parser returns. */
export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };

/** A malformed `access.yaml`, naming the line. */
export class YamlError extends Error {
  readonly line: number;
  constructor(message: string, line: number) {
    super(`line ${line}: ${message}`);
    this.name = "YamlError";
    this.line = line;
  }
}

/** Words YAML 1.1 or 1.2 readers take for booleans or null when plain. */
const RESERVED: ReadonlySet<string> = new Set(["true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"]);
/** Letters, digits and `_.@+-`, words separated by single spaces, starting with a letter or `_`. */
const PLAIN = /^[A-Za-z_][A-Za-z0-9_.@+-]*(?: [A-Za-z0-9_.@+-]+)*$/;

/** Characters escaped in a double-quoted scalar: controls, non-printables, and line or paragraph separators. */
const ESCAPED =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping them is the point.
  /[\u0000-\u001f"\\\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const SHORT_ESCAPES: Record<string, string> = { "\n": "\\n", "\t": "\\t", "\r": "\\r", '"': '\\"', "\\": "\\\\" };

/** A string as a YAML scalar: plain when unambiguous, else double-quoted with escapes. */
export function scalar(value: string | number | boolean | null): string {
  if (value === null) return "null";
  if (typeof value !== "string") return String(value);
  if (PLAIN.test(value) && !RESERVED.has(value.toLowerCase())) return value;
  return `"${value.replace(ESCAPED, (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}"`;
}

/** A flow sequence of scalars: `[VIEWER, EDITOR]`. */
export function flowSequence(values: readonly string[]): string {
  return `[${values.map(scalar).join(", ")}]`;
}

// ----- parsing -----

interface Line {
  /** 1-based. */
  number: number;
  indent: number;
  /** Without indentation and trailing comment. */
  text: string;
}

/** Parses YAML text of the shape described at the top of this file. */
export function parseYaml(text: string): YamlValue {
  const lines = significantLines(text);
  if (lines.length === 0) return null;
  const reader = { lines, at: 0 };
  const first = lines[0]!;
  const value = parseBlock(reader, first.indent);
  const extra = lines[reader.at];
  if (extra) throw new YamlError(`unexpected indentation or content: ${JSON.stringify(extra.text)}`, extra.number);
  return value;
}

function significantLines(text: string): Line[] {
  const out: Line[] = [];
  const raw = text.replace(/^\ufeff/, "").split(/\r?\n/);
  raw.forEach((line, i) => {
    if (/\t/.test(/^\s*/.exec(line)?.[0] ?? "")) throw new YamlError("indent with spaces, not tabs", i + 1);
    const body = stripComment(line, i + 1).trimEnd();
    if (body.trim() === "") return;
    if (i === 0 && body === "---") return;
    const indent = body.length - body.trimStart().length;
    out.push({ number: i + 1, indent, text: body.trimStart() });
  });
  return out;
}

/** The line without its comment: a `#` at the start or after a space, outside quotes. */
function stripComment(line: string, number: number): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (quote === '"' && c === "\\") i++;
      else if (c === quote) {
        if (quote === "'" && line[i + 1] === "'") i++;
        else quote = undefined;
      }
    } else if (c === '"' || c === "'") {
      // A quote opens a scalar only where one starts: at the start, or after `:`, `-`, `[` or `,`.
      const before = line.slice(0, i).trimEnd().at(-1);
      if (before === undefined || ":-[,".includes(before)) quote = c;
    } else if (c === "#" && (i === 0 || line[i - 1] === " ")) {
      return line.slice(0, i);
    }
  }
  if (quote) throw new YamlError(`a ${quote === '"' ? "double" : "single"}-quoted value is not closed on its line`, number);
  return line;
}

interface Reader {
  lines: Line[];
  at: number;
}

function parseBlock(reader: Reader, indent: number): YamlValue {
  const line = reader.lines[reader.at]!;
  return isItem(line.text) ? parseSequence(reader, indent) : parseMapping(reader, indent);
}

const isItem = (text: string) => text === "-" || text.startsWith("- ");

function parseSequence(reader: Reader, indent: number): YamlValue[] {
  const items: YamlValue[] = [];
  for (;;) {
    const line = reader.lines[reader.at];
    if (!line || line.indent < indent) return items;
    if (line.indent > indent) throw new YamlError("unexpected indentation", line.number);
    if (!isItem(line.text)) return items;
    const rest = line.text.slice(1).trimStart();
    const inner = line.indent + (line.text.length - rest.length);
    if (rest === "") {
      reader.at++;
      const next = reader.lines[reader.at];
      if (!next || next.indent <= indent) throw new YamlError("a list item has no value", line.number);
      items.push(parseBlock(reader, next.indent));
    } else if (isItem(rest) || keyOf(rest, line.number)) {
      // `- key: value` starts a mapping whose keys line up with `key`.
      reader.lines[reader.at] = { number: line.number, indent: inner, text: rest };
      items.push(parseBlock(reader, inner));
    } else {
      items.push(parseScalarOrFlow(rest, line.number));
      reader.at++;
    }
  }
}

/** `key` of a `key: value` or `key:` line, or undefined when the line is not one. */
function keyOf(text: string, number: number): { key: string; rest: string } | undefined {
  if (text.startsWith('"') || text.startsWith("'")) {
    const end = closingQuote(text, number);
    const after = text.slice(end + 1);
    if (!after.startsWith(":") || (after.length > 1 && after[1] !== " ")) return undefined;
    return { key: String(parseQuoted(text.slice(0, end + 1), number)), rest: after.slice(1).trim() };
  }
  const match = /^([^\s:[\]{},#&*!|>'"%@`][^:]*?)\s*:(?:\s+(.*)|)$/.exec(text);
  if (!match) return undefined;
  return { key: match[1]!, rest: (match[2] ?? "").trim() };
}

function parseMapping(reader: Reader, indent: number): { [key: string]: YamlValue } {
  const map: { [key: string]: YamlValue } = {};
  for (;;) {
    const line = reader.lines[reader.at];
    if (!line || line.indent < indent) return map;
    if (line.indent > indent) throw new YamlError("unexpected indentation", line.number);
    if (isItem(line.text)) return map;
    const entry = keyOf(line.text, line.number);
    if (!entry) throw new YamlError(`expected "key: value", got ${JSON.stringify(line.text)}`, line.number);
    if (Object.hasOwn(map, entry.key)) throw new YamlError(`the key "${entry.key}" appears twice`, line.number);
    reader.at++;
    if (entry.rest !== "") {
      map[entry.key] = parseScalarOrFlow(entry.rest, line.number);
      continue;
    }
    const next = reader.lines[reader.at];
    if (next && (next.indent > indent || (next.indent === indent && isItem(next.text)))) {
      map[entry.key] = parseBlock(reader, next.indent);
    } else {
      map[entry.key] = null;
    }
  }
}

function parseScalarOrFlow(text: string, number: number): YamlValue {
  if (text.startsWith("[")) return parseFlow(text, number);
  if (text.startsWith("{")) {
    if (text === "{}") return {};
    throw new YamlError("inline mappings ({...}) are not supported here: write one key per line", number);
  }
  return parseScalar(text, number);
}

function parseFlow(text: string, number: number): YamlValue[] {
  if (!text.endsWith("]")) throw new YamlError("a list in brackets must close on its line", number);
  const items: YamlValue[] = [];
  let rest = text.slice(1, -1).trim();
  while (rest !== "") {
    let item: string;
    if (rest.startsWith('"') || rest.startsWith("'")) {
      const end = closingQuote(rest, number);
      item = rest.slice(0, end + 1);
      rest = rest.slice(end + 1).trim();
    } else {
      const comma = rest.indexOf(",");
      item = (comma < 0 ? rest : rest.slice(0, comma)).trim();
      rest = comma < 0 ? "" : rest.slice(comma);
      if (item.includes("[") || item.includes("]") || item.includes("{"))
        throw new YamlError("nested lists are not supported here", number);
    }
    items.push(parseScalar(item, number));
    if (rest.startsWith(",")) rest = rest.slice(1).trim();
    else if (rest !== "") throw new YamlError(`expected "," between list items, got ${JSON.stringify(rest)}`, number);
  }
  return items;
}

function parseScalar(text: string, number: number): YamlValue {
  if (text.startsWith('"') || text.startsWith("'")) {
    const end = closingQuote(text, number);
    if (end !== text.length - 1)
      throw new YamlError(`unexpected text after a quoted value: ${JSON.stringify(text.slice(end + 1))}`, number);
    return parseQuoted(text, number);
  }
  if (/^[&*!|>%@`]/.test(text)) throw new YamlError(`quote this value: ${JSON.stringify(text)}`, number);
  if (/^(?:null|Null|NULL|~)$/.test(text)) return null;
  if (/^(?:true|True|TRUE)$/.test(text)) return true;
  if (/^(?:false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?\d+$/.test(text)) return Number(text);
  if (/^[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?$/.test(text)) return Number(text);
  return text;
}

/** The index of the quote closing the scalar that `text` starts with. */
function closingQuote(text: string, number: number): number {
  const quote = text[0];
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (quote === '"' && c === "\\") i++;
    else if (c === quote) {
      if (quote === "'" && text[i + 1] === "'") i++;
      else return i;
    }
  }
  throw new YamlError("a quoted value is not closed on its line", number);
}

const ESCAPES: Record<string, string> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  t: "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  e: "\x1b",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
  N: "\u0085",
  _: "\u00a0",
  L: "\u2028",
  P: "\u2029",
};

function parseQuoted(text: string, number: number): string {
  const body = text.slice(1, -1);
  if (text[0] === "'") return body.replaceAll("''", "'");
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = body[++i] ?? "";
    const hex = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
    if (hex > 0) {
      const digits = body.slice(i + 1, i + 1 + hex);
      if (!new RegExp(`^[0-9a-fA-F]{${hex}}$`).test(digits)) throw new YamlError(`bad escape \\${e}${digits}`, number);
      out += String.fromCodePoint(Number.parseInt(digits, 16));
      i += hex;
    } else if (Object.hasOwn(ESCAPES, e)) {
      out += ESCAPES[e];
    } else {
      throw new YamlError(`unknown escape \\${e} in a double-quoted value`, number);
    }
  }
  return out;
}
