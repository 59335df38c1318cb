/**
 * Just enough of an OpenAPI 3.0 schema checker to hold the emulator's answers against the
 * service's public document: `$ref`, `type`, `nullable`, `enum`, `properties`, `required`,
 * `items`, `format: date-time|uuid`. The document uses nothing else in its response schemas.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse } from "yaml";

type Json = Record<string, unknown>;

/** Where the document lives: `WA_OPENAPI_PATH`, else the shared reference folder beside the repo. */
export const OPENAPI_PATH = process.env["WA_OPENAPI_PATH"] ?? resolve(process.cwd(), "../shared/reference/public-openapi.yaml");

/** Whether the document is available (it is not part of the package). */
export const hasOpenApi = existsSync(OPENAPI_PATH);

/** The parsed document. */
export function loadOpenApi(): Json {
	return parse(readFileSync(OPENAPI_PATH, "utf8")) as Json;
}

function isJson(value: unknown): value is Json {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Follows a local `$ref` (`#/components/...`). */
export function deref(doc: Json, node: unknown): Json {
	let current: unknown = node;
	for (let guard = 0; isJson(current) && typeof current["$ref"] === "string" && guard < 20; guard++) {
		const ref = current["$ref"] as string;
		current = ref
			.replace(/^#\//, "")
			.split("/")
			.reduce<unknown>((acc, key) => (isJson(acc) ? acc[key] : undefined), doc);
	}
	if (!isJson(current)) throw new Error(`schema is not an object: ${JSON.stringify(node)}`);
	return current;
}

/** The problems of `value` against `schema`, each with its JSON path. */
export function check(doc: Json, schemaNode: unknown, value: unknown, path = "$"): string[] {
	const schema = deref(doc, schemaNode);
	if (value === null) return schema["nullable"] === true ? [] : [`${path}: null but not nullable`];
	const problems: string[] = [];
	const type = schema["type"];
	const typeOk =
		type === undefined ||
		(type === "object" && isJson(value)) ||
		(type === "array" && Array.isArray(value)) ||
		(type === "string" && typeof value === "string") ||
		(type === "number" && typeof value === "number") ||
		(type === "integer" && Number.isInteger(value)) ||
		(type === "boolean" && typeof value === "boolean");
	if (!typeOk) return [`${path}: expected ${String(type)}, got ${JSON.stringify(value)}`];
	const allowed = schema["enum"];
	if (Array.isArray(allowed) && !allowed.includes(value)) problems.push(`${path}: ${JSON.stringify(value)} not in ${JSON.stringify(allowed)}`);
	if (typeof value === "string" && schema["format"] === "date-time" && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value)) {
		problems.push(`${path}: not a date-time: ${value}`);
	}
	if (isJson(value)) {
		const properties = isJson(schema["properties"]) ? schema["properties"] : {};
		for (const name of Array.isArray(schema["required"]) ? (schema["required"] as string[]) : []) {
			if (!(name in value)) problems.push(`${path}.${name}: required`);
		}
		for (const [name, sub] of Object.entries(properties)) {
			if (name in value) problems.push(...check(doc, sub, value[name], `${path}.${name}`));
		}
	}
	if (Array.isArray(value) && schema["items"] !== undefined) {
		value.forEach((item, i) => {
			problems.push(...check(doc, schema["items"], item, `${path}[${i}]`));
		});
	}
	return problems;
}

/** The document's path template for a request path after `/api/v1` (e.g. `/users/abc` → `/users/{id}`). */
export function templateFor(doc: Json, method: string, path: string): string | undefined {
	const paths = isJson(doc["paths"]) ? doc["paths"] : {};
	const segments = path.split("/").filter((s) => s !== "");
	const candidates = Object.keys(paths).filter((template) => {
		const parts = template.split("/").filter((s) => s !== "");
		return parts.length === segments.length && parts.every((p, i) => p.startsWith("{") || p === segments[i]);
	});
	// Prefer the most literal match: fewest parameters first.
	const params = (template: string) => template.split("{").length;
	candidates.sort((a, b) => params(a) - params(b));
	const found = candidates.find((c) => isJson(paths[c]) && method.toLowerCase() in (paths[c] as Json));
	if (found !== undefined) return found;
	// The document spells the integration users list `/integrations/{id}/user`.
	if (/^\/integrations\/[^/]+\/users$/.test(path)) return "/integrations/{id}/user";
	return undefined;
}

/** The response schema the document gives for a method, path template and status; undefined when it gives none. */
export function responseSchema(doc: Json, template: string | undefined, method: string, status: number): unknown {
	if (template === undefined) return undefined;
	const operation = deref(doc, (doc["paths"] as Json)[template]);
	const op = operation[method.toLowerCase()];
	if (!isJson(op) || !isJson(op["responses"])) return undefined;
	const response = op["responses"][String(status)];
	if (response === undefined) return undefined;
	const content = deref(doc, response)["content"];
	if (!isJson(content) || !isJson(content["application/json"])) return undefined;
	return content["application/json"]["schema"];
}
